import { TroupeError } from '../../../core/errors.js';

/** A subscription on a closed bus would never fire: fail loudly instead of letting a waiter hang. */
export function rejectClosedBus(): Promise<never> {
  return Promise.reject(new TroupeError('internal', 'The event bus is closed'));
}
