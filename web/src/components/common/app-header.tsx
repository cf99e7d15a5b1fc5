import { useEffect, useState } from 'react';
import type { User } from '../../api/types.ts';
import type { AppRoute } from '../../lib/routes.ts';
import { paths } from '../../lib/routes.ts';
import { AppLink } from './app-link.tsx';

export interface AppHeaderProps {
  route: AppRoute;
  user: User | null;
  onLogout: () => void;
}

/** Top-level sections; a new page adds its entry here (and its route in lib/routes.ts). */
export const SECTIONS: readonly { label: string; to: string; pages: readonly AppRoute['page'][] }[] = [
  { label: 'Chat', to: paths.chat(), pages: ['chat'] },
  { label: 'Agents', to: paths.agents(), pages: ['agents', 'agent-new', 'agent-edit'] },
  { label: 'Runs', to: paths.runs(), pages: ['run-tree'] },
  { label: 'Skills', to: paths.skills(), pages: ['skills'] },
  { label: 'Knowledge', to: paths.knowledge(), pages: ['knowledge'] },
  { label: 'Settings', to: paths.settings(), pages: ['settings'] },
];

/** The top bar; on a phone the sections and the account fold into a "Menu" button. */
export function AppHeader({ route, user, onLogout }: AppHeaderProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  // Any navigation folds the menu again.
  const where = JSON.stringify(route);
  useEffect(() => setMenuOpen(false), [where]);
  return (
    <header className={`app-header${menuOpen ? ' menu-open' : ''}`}>
      <span className="brand">Troupe</span>
      <button
        type="button"
        className="menu-toggle"
        aria-expanded={menuOpen}
        aria-controls="app-menu"
        onClick={() => setMenuOpen(!menuOpen)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') setMenuOpen(false);
        }}
      >
        Menu
      </button>
      <div id="app-menu" className="app-menu">
        <nav aria-label="Main">
          <ul>
            {SECTIONS.map((section) => {
              const current = section.pages.includes(route.page);
              return (
                <li key={section.label}>
                  <AppLink to={section.to} aria-current={current ? 'page' : undefined}>
                    {section.label}
                  </AppLink>
                </li>
              );
            })}
          </ul>
        </nav>
        {user === null ? null : (
          <span className="user-chip" title={user.id}>
            {user.name} <span className="muted">({user.role})</span>
          </span>
        )}
        <button type="button" onClick={onLogout}>
          Log out
        </button>
      </div>
    </header>
  );
}
