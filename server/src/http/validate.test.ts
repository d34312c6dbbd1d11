import { CreateWebhookEndpointRequestSchema, PickupRequestSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { ProblemError } from './problem';
import { validate } from './validate';

function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('validate', () => {
  it('names the text rule invalid_characters, in any schema, webhook endpoints included', () => {
    const nul = refusal(() => validate(PickupRequestSchema, { code: '12\u00003' }));
    expect(nul.errors).toEqual([
      expect.objectContaining({ field: 'code', code: 'invalid_characters' }),
    ]);
    const lone = refusal(() =>
      validate(
        CreateWebhookEndpointRequestSchema,
        { url: 'https://shop.example/hook', description: 'a\ud800' },
        'validation_failed',
      ),
    );
    expect(lone.code).toBe('validation_failed');
    expect(lone.errors).toEqual([
      expect.objectContaining({ field: 'description', code: 'invalid_characters' }),
    ]);
  });
});
