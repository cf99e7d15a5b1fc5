const KEY = 'troupe.token';

/** The API token lives in localStorage: it survives reloads and tabs until "Log out" or a 401. */
export const tokenStore = {
  get(): string | null {
    try {
      const value = localStorage.getItem(KEY);
      return value === null || value.trim() === '' ? null : value;
    } catch {
      return null;
    }
  },
  set(token: string): void {
    try {
      localStorage.setItem(KEY, token);
    } catch {
      // Private mode: the session lasts until the tab closes.
    }
  },
  clear(): void {
    try {
      localStorage.removeItem(KEY);
    } catch {
      // Nothing stored.
    }
  },
};
