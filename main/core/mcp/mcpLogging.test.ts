import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { EmptyResultSchema, LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { errorInfo } from '../../../protocol/index.js';
import type { ToolResult } from '../tools/toolRunner.js';
import { LOGGER, logEntry, sessionLogging, type LogEntry } from './mcpLogging.js';

const receipt = (outcome: string, extra: Record<string, unknown> = {}): ToolResult => ({
  isError: false,
  text: 'receipt',
  structured: { receipt_id: 'R1', outcome, ...extra },
});
const failure = (code: Parameters<typeof errorInfo>[0]): ToolResult => ({ isError: true, text: `error ${code}`, error: errorInfo(code, `${code} happened`) });

describe('MCP logging (docs/tools.md#logging)', () => {
  it('gives a receipt the level of its outcome and a tool error the level of its code', () => {
    const levels = (results: ToolResult[]): string[] => results.map((r) => logEntry('element_act', r).level);
    assert.deepEqual(
      levels([
        receipt('completed'),
        receipt('pending'),
        receipt('refused', { refusal: errorInfo('denied', 'no') }),
        receipt('refused', { refusal: errorInfo('withdrawn', 'gone') }),
        receipt('refused', { refusal: errorInfo('braked', 'stop') }),
        receipt('refused', { refusal: errorInfo('stale_element', 'moved') }),
        receipt('failed', { error: errorInfo('timeout', 'slow') }),
      ]),
      ['info', 'info', 'notice', 'notice', 'warning', 'info', 'warning'],
    );
    assert.deepEqual(levels([failure('internal'), failure('braked'), failure('expired'), failure('invalid_argument')]), [
      'error',
      'warning',
      'notice',
      'debug',
    ]);
    assert.deepEqual(logEntry('element_act', receipt('refused', { refusal: errorInfo('denied', 'not now') })).data, {
      tool: 'element_act',
      outcome: 'refused',
      receipt_id: 'R1',
      code: 'denied',
      detail: 'not now',
    });
    assert.deepEqual(logEntry('window_list', { isError: false, text: '', structured: { windows: [] } }), {
      level: 'debug',
      data: { tool: 'window_list', outcome: 'answered' },
    });
  });

  it('answers logging/setLevel with {} and sends only messages at or above the level, notice before any is set', async () => {
    const server = new Server({ name: 'logging-test', version: '1' }, { capabilities: { logging: {} } });
    const logging = sessionLogging(server);
    const client = new Client({ name: 'log-reader', version: '1' });
    const seen: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen.push(n.params));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
    assert.deepEqual(client.getServerCapabilities()?.logging, {});
    const entry = (level: LogEntry['level'], tool: string): LogEntry => ({ level, data: { tool, outcome: 'x' } });
    const settle = (): Promise<void> => client.ping().then(() => undefined);

    for (const level of ['debug', 'info', 'notice', 'error'] as const) logging.log(entry(level, `default-${level}`));
    await settle();
    assert.deepEqual(
      seen.map((m) => m.data),
      [
        { tool: 'default-notice', outcome: 'x' },
        { tool: 'default-error', outcome: 'x' },
      ],
    );
    assert.ok(seen.every((m) => m.logger === LOGGER));

    assert.deepEqual(await client.setLoggingLevel('debug'), {});
    seen.length = 0;
    logging.log(entry('debug', 'debug-now'));
    await settle();
    assert.deepEqual(
      seen.map((m) => [m.level, (m.data as { tool: string }).tool]),
      [['debug', 'debug-now']],
    );

    assert.deepEqual(await client.setLoggingLevel('critical'), {});
    seen.length = 0;
    logging.log(entry('error', 'error-now'));
    await settle();
    assert.deepEqual(seen, []);
    await assert.rejects(client.request({ method: 'logging/setLevel', params: { level: 'loud' } }, EmptyResultSchema), /-32602|Invalid/);
    await client.close();
  });
});
