import { describe, expect, it } from 'vitest';
import { parseDoorSpec } from './doorSpec';

describe('parseDoorSpec', () => {
  it('reads positions, sizes, unknown sizes and codes', () => {
    expect(parseDoorSpec('1:S:A1,2:M:A2,3:L,4:XL,5:-')).toEqual([
      { position: 1, size: 'S', code: 'A1' },
      { position: 2, size: 'M', code: 'A2' },
      { position: 3, size: 'L', code: null },
      { position: 4, size: 'XL', code: null },
      { position: 5, size: null, code: null },
    ]);
  });

  it('refuses bad positions, sizes, extra parts and repeats', () => {
    for (const bad of ['0:S', 'x:S', '1:XXL', '1:S:A:B', '1:S,1:M', '1']) {
      expect(() => parseDoorSpec(bad), bad).toThrow();
    }
  });
});
