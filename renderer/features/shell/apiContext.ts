import { createContext, useCallback, useContext } from 'react';
import type { UiCommand } from '../../../protocol/index.js';
import type { Api, CommandParams, CommandResult } from '../../api/api.js';
import { appStore } from '../../store/useApp.js';

/** The page's UI channel client. */
export const ApiContext = createContext<Api | undefined>(undefined);

/** The UI channel client; throws outside the provider (a wiring bug). */
export function useApi(): Api {
  const api = useContext(ApiContext);
  if (api === undefined) throw new Error('useApi outside ApiContext');
  return api;
}

/** The message of a failed command, for the notice line. */
export function describeError(command: string, error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  return detail.startsWith(command) ? detail : `${command}: ${detail}`;
}

/** Sends a command; a failure becomes the notice line and resolves undefined. */
export function useCommand(): <C extends UiCommand>(command: C, params: CommandParams<C>) => Promise<CommandResult<C> | undefined> {
  const api = useApi();
  return useCallback(
    async <C extends UiCommand>(command: C, params: CommandParams<C>) => {
      try {
        return await api.command(command, params);
      } catch (error) {
        appStore.getState().setNotice(describeError(command, error));
        return undefined;
      }
    },
    [api],
  );
}
