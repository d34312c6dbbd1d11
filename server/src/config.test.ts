import { describe, expect, it } from 'vitest';
import { ConfigError, DEV_PICKUP_SECRET, developmentSecretProblem, loadConfig } from './config';

function problem(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('loadConfig accepted it');
}

describe('server settings', () => {
  it('has working defaults for development', () => {
    expect(loadConfig({})).toMatchObject({
      production: false,
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: undefined,
      embeddedPort: 54329,
      pickupCodeSecret: DEV_PICKUP_SECRET,
      smsTransport: 'console',
      offlineAfterSeconds: 180,
    });
    expect(loadConfig({ PORT: '9000', DATABASE_URL: '' }).port).toBe(9000);
  });

  it('sends webhooks to public addresses only unless WEBHOOK_ALLOW_PRIVATE=true', () => {
    expect(loadConfig({}).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'false' }).webhookAllowPrivate).toBe(false);
    expect(problem({ WEBHOOK_ALLOW_PRIVATE: 'yes' })).toBe(
      'bad setting: WEBHOOK_ALLOW_PRIVATE must be true or false (got "yes")',
    );
  });

  it('computes one offline verifier at a time by default; 0 turns the worker off', () => {
    expect(loadConfig({}).verifierConcurrency).toBe(1);
    expect(loadConfig({ VERIFIER_CONCURRENCY: '0' }).verifierConcurrency).toBe(0);
    expect(loadConfig({ VERIFIER_CONCURRENCY: '3' }).verifierConcurrency).toBe(3);
    expect(problem({ VERIFIER_CONCURRENCY: '-1' })).toMatch(
      /VERIFIER_CONCURRENCY must be a whole number from 0 to 64/,
    );
  });

  it('names the variable of every bad value, and what it must be', () => {
    expect(problem({ PORT: '80a80' })).toBe(
      'bad setting: PORT must be a whole number from 0 to 65535 (got "80a80")',
    );
    const several = problem({ OFFLINE_AFTER_SECONDS: '1e3', LOG_LEVEL: 'loud', DB_POOL_SIZE: '0' });
    expect(several).toMatch(/OFFLINE_AFTER_SECONDS must be a whole number/);
    expect(several).toMatch(/LOG_LEVEL must be one of fatal, error, warn, info/);
    expect(several).toMatch(/DB_POOL_SIZE must be a whole number from 1/);
    expect(problem({ SMS_TRANSPORT: 'carrier-pigeon' })).toMatch(
      /SMS_TRANSPORT must be console, file:PATH or twilio/,
    );
    expect(problem({ SMS_TRANSPORT: 'twilio', TWILIO_FROM: '+1555' })).toMatch(
      /TWILIO_ACCOUNT_SID is required with SMS_TRANSPORT=twilio; TWILIO_AUTH_TOKEN is required/,
    );
  });

  it('reads the Twilio account with the rest, and names a bad API address', () => {
    const twilio = {
      SMS_TRANSPORT: 'twilio',
      TWILIO_ACCOUNT_SID: 'AC123',
      TWILIO_AUTH_TOKEN: 'secret-token',
      TWILIO_FROM: '+38349000000',
    };
    expect(loadConfig(twilio).twilio).toEqual({
      accountSid: 'AC123',
      authToken: 'secret-token',
      from: '+38349000000',
      baseUrl: 'https://api.twilio.com',
    });
    expect(loadConfig({ ...twilio, TWILIO_BASE_URL: 'http://127.0.0.1:9' }).twilio?.baseUrl).toBe(
      'http://127.0.0.1:9',
    );
    expect(loadConfig({}).twilio).toBeUndefined();
    expect(problem({ ...twilio, TWILIO_BASE_URL: 'api.example' })).toBe(
      'bad setting: TWILIO_BASE_URL must be an http:// or https:// URL (got "api.example")',
    );
  });

  it('never echoes a secret or a database password in the message', () => {
    const message = problem({
      DATABASE_URL: 'mysql://u:hunter2@db/x',
      PICKUP_CODE_SECRET: 'short',
    });
    expect(message).toMatch(/DATABASE_URL must be a postgres:\/\/ URL/);
    expect(message).toMatch(/PICKUP_CODE_SECRET must be at least 16 characters/);
    expect(message).not.toMatch(/hunter2|short"/);
  });

  it('refuses the development pickup secret and the console SMS in production', () => {
    const message = problem({ NODE_ENV: 'production' });
    expect(message).toMatch(/PICKUP_CODE_SECRET must be set to a secret of your own/);
    expect(message).toMatch(/SMS_TRANSPORT must not be console with NODE_ENV=production/);
    expect(message).toMatch(/WEBHOOK_SECRET_KEYS must be set with NODE_ENV=production/);
    expect(
      loadConfig({
        NODE_ENV: 'production',
        PICKUP_CODE_SECRET: 'a-long-production-secret-value',
        SMS_TRANSPORT: 'file:/var/log/sms.jsonl',
        WEBHOOK_SECRET_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
      }).production,
    ).toBe(true);
  });

  it('allows the development pickup secret only with LOCKER_DEV=1', () => {
    expect(developmentSecretProblem(loadConfig({}))).toMatch(
      /^PICKUP_CODE_SECRET is not set, .*or LOCKER_DEV=1/,
    );
    expect(loadConfig({ LOCKER_DEV: '1' }).development).toBe(true);
    expect(developmentSecretProblem(loadConfig({ LOCKER_DEV: '1' }))).toBeUndefined();
    expect(developmentSecretProblem(loadConfig({ LOCKER_DEV: '0' }))).toBeDefined();
    expect(
      developmentSecretProblem(loadConfig({ PICKUP_CODE_SECRET: 'a-secret-of-our-own-1234' })),
    ).toBeUndefined();
    expect(problem({ LOCKER_DEV: 'yes' })).toBe(
      'bad setting: LOCKER_DEV must be 1 (development) or 0 (got "yes")',
    );
    // Production refuses the development secret whatever the flag says.
    expect(problem({ NODE_ENV: 'production', LOCKER_DEV: '1' })).toMatch(
      /PICKUP_CODE_SECRET must be set to a secret of your own/,
    );
  });
});
