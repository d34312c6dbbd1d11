// The four languages' texts as plain objects, for what reads them outside the screen
// (the speech tests check the synthesiser was given exactly these).
export { en } from './en';
export { sq } from './sq';
export { sr } from './sr';
export { tr } from './tr';
