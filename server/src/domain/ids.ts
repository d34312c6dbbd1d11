const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` has UUID form (checked before PostgreSQL would reject the cast). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
