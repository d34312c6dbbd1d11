import { roleCan, type Operator, type OpsPermission } from '@locker/shared';
import { createContext, useContext, useEffect, useState } from 'react';
import type { Language } from './i18n';

export interface Console {
  operator: Operator;
  /** Whether the operator's role may; what it may not is left off the screen. */
  can: (permission: OpsPermission) => boolean;
  language: Language;
  zone: string;
  setLanguage: (language: Language) => void;
  setZone: (zone: string) => void;
  /** Says `text` to screen readers, politely. */
  announce: (text: string) => void;
  signOut: (everywhere: boolean) => Promise<void>;
}

export const ConsoleContext = createContext<Console | null>(null);

export function useConsole(): Console {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole outside the signed-in console');
  return value;
}

export const canFor = (operator: Operator) => (permission: OpsPermission) =>
  roleCan(operator.role, permission);

/** The current time, moving every `ms`: relative times stay true without a reload. */
export function useNow(ms = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
