import type { ConnectionRef } from '../../../protocol/index.js';
import { isRemote, kindWords } from '../../model/connectionWords.js';
import { UntrustedText } from '../shell/UntrustedText.js';

/**
 * Where a card's action lands when it is not this desktop (docs/supervision.md#where-an-action-lands): the connection's
 * name, kind and host or URL, first on the card and in a colour no local card has, because acting
 * on the wrong desktop is the one mistake the person must not make. A local card shows nothing here.
 */
export function CardWhere({ connection }: { connection: ConnectionRef | undefined }) {
  if (!isRemote(connection)) return null;
  return (
    <div className="card-where" data-testid="card-where" data-connection={connection.name}>
      <span className="card-where-label">On</span> <strong data-testid="card-where-name">{connection.name}</strong>{' '}
      <span className="card-where-kind">({kindWords(connection.kind)})</span>{' '}
      <span className="card-where-host" data-testid="card-where-host">
        <UntrustedText text={connection.where} limit={200} />
      </span>
    </div>
  );
}
