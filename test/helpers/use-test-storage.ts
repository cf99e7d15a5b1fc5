import { closeAfterEach } from './close-after-each.js';
import { createTestStorage, type TestStorage } from './http/create-test-storage.js';

/** Opens real SQLite storages on temp files that are closed and deleted after each test. */
export function useTestStorage(): () => Promise<TestStorage> {
  const closeLater = closeAfterEach();
  return async () => {
    const opened = await createTestStorage();
    closeLater(opened);
    return opened;
  };
}
