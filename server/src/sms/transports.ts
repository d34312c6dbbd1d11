import { appendFile } from 'node:fs/promises';
import type { TwilioSettings } from '../config';
import { DEFAULT_POST_TIMEOUTS, keptAgents, post } from '../http/post';

export interface SmsMessage {
  to: string;
  language: string;
  text: string;
}

export interface SmsTransport {
  readonly name: string;
  send(message: SmsMessage): Promise<void>;
}

/** Development default: the SMS is printed, so a newcomer sees the pickup code. */
function consoleTransport(): SmsTransport {
  return {
    name: 'console',
    send: (m) => {
      const head = `📱 SMS to ${m.to} [${m.language}]`;
      // In a terminal it stands out from the log lines around it: it carries the code.
      process.stdout.write(
        process.stdout.isTTY
          ? `\n\u001b[1;30;43m ${head} \u001b[0m\n\u001b[1m   ${m.text}\u001b[0m\n\n`
          : `\n${head}\n   ${m.text}\n\n`,
      );
      return Promise.resolve();
    },
  };
}

/** One JSON line per message, `{"to","language","text"}`: what tests and demos read. */
function fileTransport(file: string): SmsTransport {
  return {
    name: 'file',
    send: async (m) => {
      await appendFile(
        file,
        JSON.stringify({ to: m.to, language: m.language, text: m.text }) + '\n',
      );
    },
  };
}

/** Twilio's Messages API (form-encoded POST, Basic auth), as the settings say. */
function twilioTransport(settings: TwilioSettings | undefined): SmsTransport {
  if (!settings) {
    throw new Error(
      'SMS_TRANSPORT=twilio needs TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM',
    );
  }
  const { accountSid: sid, authToken: token, from, baseUrl: base } = settings;
  const url = new URL(`${base}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`);
  const auth = 'Basic ' + Buffer.from(`${sid}:${token}`).toString('base64');
  const agents = keptAgents();
  return {
    name: 'twilio',
    send: async (m) => {
      const { status } = await post(
        url,
        { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
        new URLSearchParams({ To: m.to, From: from, Body: m.text }).toString(),
        { agents, ...DEFAULT_POST_TIMEOUTS },
      );
      if (status < 200 || status > 299) throw new Error(`SMS provider answered ${status}`);
    },
  };
}

/** `console`, `file:PATH` or `twilio`, as `SMS_TRANSPORT` says. */
export function smsTransportFrom(
  setting: string,
  twilio: TwilioSettings | undefined,
): SmsTransport {
  if (setting === 'console') return consoleTransport();
  if (setting.startsWith('file:')) return fileTransport(setting.slice('file:'.length));
  if (setting === 'twilio') return twilioTransport(twilio);
  throw new Error(`SMS_TRANSPORT must be console, file:PATH or twilio, not "${setting}"`);
}
