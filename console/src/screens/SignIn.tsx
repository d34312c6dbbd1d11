import { SessionAnswerSchema, type Operator, type SessionAnswer } from '@locker/shared';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, post } from '../api';
import type { Language } from '../i18n';
import { ErrorNote } from '../parts/ErrorNote';
import { LanguagePicker } from '../parts/LanguagePicker';

type Stage =
  | { kind: 'password' }
  | { kind: 'code'; recovery: boolean }
  | { kind: 'setup'; uri: string }
  | { kind: 'recovery_codes'; codes: string[]; operator: Operator };

/**
 * Sign-in: e-mail and password, then the authenticator's code (or a recovery code); on
 * the first sign-in of a role that can open doors, the authenticator is set up from a QR
 * code and the recovery codes are shown, once.
 */
export function SignInScreen({
  why,
  language,
  setLanguage,
  onSignedIn,
}: {
  why: 'expired' | 'signed_out' | 'everywhere' | undefined;
  language: Language;
  setLanguage: (language: Language) => void;
  onSignedIn: (operator: Operator) => void;
}) {
  const { t } = useTranslation();
  const [stage, setStage] = useState<Stage>({ kind: 'password' });
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [stage.kind]);

  const answered = (answer: SessionAnswer) => {
    if (answer.stage === 'complete' && answer.operator) {
      if (answer.recovery_codes?.length)
        setStage({
          kind: 'recovery_codes',
          codes: answer.recovery_codes,
          operator: answer.operator,
        });
      else onSignedIn(answer.operator);
    } else if (answer.stage === 'second_factor') setStage({ kind: 'code', recovery: false });
    else if (answer.stage === 'second_factor_setup' && answer.otpauth_uri)
      setStage({ kind: 'setup', uri: answer.otpauth_uri });
  };
  const submit = (path: string, body: object) => async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      answered(await post(path, body, SessionAnswerSchema));
    } catch (failure) {
      setError(failure instanceof ApiError ? failure : new ApiError(0, 'unreadable', undefined));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="sign-in">
      <div className="sign-in-card">
        <p className="brand">{t('shell.brand')}</p>
        {stage.kind === 'password' && (
          <PasswordForm
            why={why}
            busy={busy}
            heading={heading}
            onSubmit={(email, password) => submit('/session', { email, password })}
          />
        )}
        {stage.kind === 'code' && (
          <CodeForm
            recovery={stage.recovery}
            busy={busy}
            heading={heading}
            onToggle={() => setStage({ kind: 'code', recovery: !stage.recovery })}
            onSubmit={(value) =>
              submit(
                '/session/second-factor',
                stage.recovery ? { recovery_code: value } : { code: value },
              )
            }
          />
        )}
        {stage.kind === 'setup' && (
          <SetupFactor
            uri={stage.uri}
            busy={busy}
            heading={heading}
            onSubmit={(code) => submit('/session/second-factor', { code })}
          />
        )}
        {stage.kind === 'recovery_codes' && (
          <RecoveryCodes
            codes={stage.codes}
            heading={heading}
            onDone={() => onSignedIn(stage.operator)}
          />
        )}
        {error && <ErrorNote error={error} />}
        {stage.kind !== 'recovery_codes' && (
          <LanguagePicker language={language} setLanguage={setLanguage} />
        )}
      </div>
    </main>
  );
}

type Heading = React.RefObject<HTMLHeadingElement | null>;

function PasswordForm({
  why,
  busy,
  heading,
  onSubmit,
}: {
  why: 'expired' | 'signed_out' | 'everywhere' | undefined;
  busy: boolean;
  heading: Heading;
  onSubmit: (email: string, password: string) => (e: FormEvent) => Promise<void>;
}) {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  return (
    <form onSubmit={(e) => void onSubmit(email, password)(e)}>
      <h1 ref={heading} tabIndex={-1}>
        {t('signIn.title')}
      </h1>
      {why && (
        <p className="note info" role="status">
          {t(`signIn.why.${why}`)}
        </p>
      )}
      <label>
        {t('signIn.email')}
        <input
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </label>
      <label>
        {t('signIn.password')}
        <input
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      <button type="submit" className="primary" disabled={busy}>
        {busy ? t('signIn.signingIn') : t('signIn.submit')}
      </button>
    </form>
  );
}

function CodeForm({
  recovery,
  busy,
  heading,
  onToggle,
  onSubmit,
}: {
  recovery: boolean;
  busy: boolean;
  heading: Heading;
  onToggle: () => void;
  onSubmit: (value: string) => (e: FormEvent) => Promise<void>;
}) {
  const { t } = useTranslation();
  const [value, setValue] = useState('');
  return (
    <form onSubmit={(e) => void onSubmit(value)(e)}>
      <h1 ref={heading} tabIndex={-1}>
        {t('signIn.codeTitle')}
      </h1>
      <label>
        {recovery ? t('signIn.recoveryCode') : t('signIn.code')}
        <input
          key={String(recovery)}
          inputMode={recovery ? 'text' : 'numeric'}
          autoComplete="one-time-code"
          pattern={recovery ? undefined : '[0-9]{6}'}
          maxLength={recovery ? 40 : 6}
          required
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
      </label>
      <button type="submit" className="primary" disabled={busy}>
        {t('signIn.verify')}
      </button>
      <button type="button" className="link" onClick={onToggle}>
        {recovery ? t('signIn.useApp') : t('signIn.useRecovery')}
      </button>
    </form>
  );
}

function SetupFactor({
  uri,
  busy,
  heading,
  onSubmit,
}: {
  uri: string;
  busy: boolean;
  heading: Heading;
  onSubmit: (code: string) => (e: FormEvent) => Promise<void>;
}) {
  const { t } = useTranslation();
  const [image, setImage] = useState<string>();
  const [code, setCode] = useState('');
  const secret = (() => {
    try {
      return new URL(uri).searchParams.get('secret') ?? '';
    } catch {
      return '';
    }
  })();
  useEffect(() => {
    // Loaded only here: most sign-ins never draw a QR code.
    void import('qrcode')
      .then((QRCode) => QRCode.toDataURL(uri, { margin: 2, width: 232, errorCorrectionLevel: 'M' }))
      .then(setImage);
  }, [uri]);
  return (
    <form onSubmit={(e) => void onSubmit(code)(e)}>
      <h1 ref={heading} tabIndex={-1}>
        {t('signIn.setupTitle')}
      </h1>
      <p>{t('signIn.setupWhy')}</p>
      <ol className="steps">
        <li>{t('signIn.setupScan')}</li>
        <li>{t('signIn.setupType')}</li>
      </ol>
      <div className="qr">
        {image && <img src={image} width={232} height={232} alt={t('signIn.qrAlt')} />}
        <p>
          {t('signIn.setupManual')}{' '}
          <code className="secret-value" data-testid="totp-secret">
            {secret.replace(/(.{4})/g, '$1 ').trim()}
          </code>
        </p>
      </div>
      <label>
        {t('signIn.code')}
        <input
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          required
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
      </label>
      <button type="submit" className="primary" disabled={busy}>
        {t('signIn.confirmSetup')}
      </button>
    </form>
  );
}

function RecoveryCodes({
  codes,
  heading,
  onDone,
}: {
  codes: string[];
  heading: Heading;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const [saved, setSaved] = useState(false);
  const [copied, setCopied] = useState(false);
  return (
    <div>
      <h1 ref={heading} tabIndex={-1}>
        {t('signIn.recoveryTitle')}
      </h1>
      <p>{t('signIn.recoveryWhy')}</p>
      <ul className="recovery-codes" aria-label={t('signIn.recoveryTitle')}>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <p className="strong">{t('common.shownOnce')}</p>
      <div className="row">
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard?.writeText(codes.join('\n')).then(() => setCopied(true));
          }}
        >
          {t('common.copy')}
        </button>
        <span role="status" className="muted">
          {copied ? t('common.copied') : ''}
        </span>
      </div>
      <label className="check">
        <input type="checkbox" checked={saved} onChange={(e) => setSaved(e.target.checked)} />
        {t('signIn.recoverySaved')}
      </label>
      <button type="button" className="primary" disabled={!saved} onClick={onDone}>
        {t('signIn.continue')}
      </button>
    </div>
  );
}
