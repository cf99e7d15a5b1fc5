import type { User } from '../../api/types.ts';
import type { AppRoute } from '../../lib/routes.ts';
import { paths } from '../../lib/routes.ts';
import { AppLink } from './app-link.tsx';

export interface AppHeaderProps {
  route: AppRoute;
  user: User;
  onLogout: () => void;
}

const SECTIONS = [
  { label: 'Chat', to: paths.chat(), pages: ['chat'] },
  { label: 'Agents', to: paths.agents(), pages: ['agents', 'agent-new', 'agent-edit'] },
  { label: 'Skills', to: paths.skills(), pages: ['skills'] },
  { label: 'Runs', to: paths.runTree(), pages: ['run-tree'] },
  { label: 'Settings', to: paths.settings(), pages: ['settings'] },
  { label: 'Knowledge', to: paths.knowledge(), pages: ['knowledge'] },
] as const;

export function AppHeader({ route, user, onLogout }: AppHeaderProps) {
  return (
    <header className="app-header">
      <span className="brand">Troupe</span>
      <nav aria-label="Main">
        <ul>
          {SECTIONS.map((section) => {
            const current = (section.pages as readonly string[]).includes(route.page);
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
      <span className="user-chip" title={user.id}>
        {user.name} <span className="muted">({user.role})</span>
      </span>
      <button type="button" onClick={onLogout}>
        Log out
      </button>
    </header>
  );
}
