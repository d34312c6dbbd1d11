import { describe, expect, it } from 'vitest';
import { probeBaudRates } from './probe';
import { mockBoard } from '../test/mockBoard';

describe('probeBaudRates', () => {
  it('finds the rate boards were set to; at other rates they stay silent', async () => {
    const mock = mockBoard({ boards: 2, boardBaud: 57600 });
    const results = await probeBaudRates((baud) => mock.transportAt(baud), 100);
    expect(results).toEqual([
      { baud: 9600, boards: [] },
      { baud: 19200, boards: [] },
      { baud: 57600, boards: [0, 1] },
      { baud: 115200, boards: [] },
    ]);
  });

  it('counts no board at a wrong rate whose line carries garbled replies and near-frames', async () => {
    const mock = mockBoard({ boards: 2, boardBaud: 19200, wrongBaud: 'noise' });
    const results = await probeBaudRates((baud) => mock.transportAt(baud), 100);
    expect(mock.heard.noiseBytes).toBeGreaterThan(0);
    expect(results).toEqual([
      { baud: 9600, boards: [] },
      { baud: 19200, boards: [0, 1] },
      { baud: 57600, boards: [] },
      { baud: 115200, boards: [] },
    ]);
  });
});
