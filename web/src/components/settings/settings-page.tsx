import { ApiTokensSection } from './api-tokens-section.tsx';
import { DelegationPolicySection } from './delegation-policy-section.tsx';

export function SettingsPage() {
  return (
    <main className="page settings-page">
      <h1>Settings</h1>
      <ApiTokensSection />
      <DelegationPolicySection />
    </main>
  );
}
