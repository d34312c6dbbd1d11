/** The first word of a full name: all the kiosk ever shows or says of a recipient. */
export function firstNameOf(fullName: string): string {
  return fullName.trim().split(/\s+/)[0] ?? '';
}
