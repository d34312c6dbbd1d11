import type { BrowserContext, Page } from 'playwright-core';
import type { OperatorRole } from '@locker/shared';
import {
  signedInOperator,
  startTestServer,
  testClock,
  type TestStack,
} from '@locker/server/testing';
import { launchBrowser } from '../browser';

export const DESK = { width: 1280, height: 720 } as const;
export const TABLET = { width: 820, height: 1180 } as const;

export { launchBrowser };

/**
 * The real server on its own database, serving the built console under /ops/, with a
 * clock the test moves (TOTP codes are accepted once per 30 s step), and a browser.
 */
export async function consoleStack() {
  const clock = testClock();
  const stack = await startTestServer({ clock: clock.now });
  const browser = await launchBrowser();
  return {
    stack,
    clock,
    browser,
    stop: async () => {
      await browser.close();
      await stack.close();
    },
  };
}
export type ConsoleStack = Awaited<ReturnType<typeof consoleStack>>;

/** An operator signed in through the API, and a browser page holding their session. */
export async function operatorPage(
  c: ConsoleStack,
  role: OperatorRole,
  options: {
    stations?: string[];
    viewport?: { width: number; height: number };
    language?: 'en' | 'sq';
  } = {},
): Promise<{
  page: Page;
  context: BrowserContext;
  operator: Awaited<ReturnType<typeof signedInOperator>>;
}> {
  const operator = await signedInOperator(c.stack, c.clock, role, options.stations);
  const context = await c.browser.newContext({
    viewport: options.viewport ?? DESK,
    // A tablet is touched: coarse pointer, larger targets.
    hasTouch: options.viewport === TABLET,
    locale: options.language === 'sq' ? 'sq-AL' : 'en-GB',
    timezoneId: 'Europe/Belgrade',
  });
  const [name, value] = operator.client.cookie()!.split('=');
  await context.addCookies([
    { name: name!, value: value!, url: c.stack.url, sameSite: 'Strict', httpOnly: true },
  ]);
  if (options.language)
    await context.addInitScript(
      (language) => localStorage.setItem('console.language', language),
      options.language,
    );
  const page = await context.newPage();
  return { page, context, operator };
}

export type Stack = TestStack;
