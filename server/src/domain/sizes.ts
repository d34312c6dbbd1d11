import { SIZES, type Size } from '@locker/shared';

/** Sizes a parcel of `size` fits into, smallest first (S < M < L < XL). */
export function sizesFitting(size: Size): Size[] {
  return SIZES.slice(SIZES.indexOf(size));
}
