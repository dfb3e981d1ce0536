import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { isRootAdminRole } from '@flaglens/projections/identity/root-admin';
import { clearToken, getJson, storedToken, storeToken, type Profile } from './api';
import { EventsPage } from './events';
import { FlagPage } from './flag';
import { InsightsPage } from './insights';
import { OperationsPage } from './operations';
import { ProfilePage } from './profile';
import { ProjectPage } from './project';
import { href, useRoute } from './route';

function SignIn({ onSignedIn }: { onSignedIn: (p: Profile) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="signin">
      <h1>flaglens console</h1>
      <form
        class="card"
        onSubmit={async (e) => {
          e.preventDefault();
          const token = String(new FormData(e.currentTarget).get('token') ?? '').trim();
          if (!token) return setError('Paste a personal access token.');
          setBusy(true);
          try {
            const profile = await getJson<Profile>('/api/admin/user/profile', token);
            storeToken(token);
            onSignedIn(profile);
          } catch (err) {
            setError(`Not signed in: ${(err as Error).message}`);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="token">Personal access token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          required
          aria-describedby="token-help"
        />
        <p id="token-help" class="muted">
          Create one with <code>npm run cli -- token create --user you@example.com</code>. It is kept in this
          tab only (sessionStorage) and sent as the Authorization header.
        </p>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

function App() {
  const route = useRoute();
  const [profile, setProfile] = useState<Profile | null>(null);
  const [checked, setChecked] = useState(false);
  useEffect(() => {
    if (!storedToken()) return setChecked(true);
    getJson<Profile>('/api/admin/user/profile')
      .then(setProfile)
      .catch(() => clearToken())
      .finally(() => setChecked(true));
  }, []);
  useEffect(() => {
    const out = () => {
      clearToken();
      setProfile(null);
    };
    window.addEventListener('flaglens:signed-out', out);
    return () => window.removeEventListener('flaglens:signed-out', out);
  }, []);
  if (!checked) return <p>Loading…</p>;
  if (!profile) return <SignIn onSignedIn={setProfile} />;
  const operator = isRootAdminRole(profile.rootRole);
  const pages: [string, string][] = [
    ['insights', 'Insights'],
    ['flag', 'Flags'],
    ['events', 'Events'],
    ['project', 'Projects'],
    ['profile', 'Profile'],
    ...(operator ? ([['operations', 'Operations']] as [string, string][]) : []),
  ];
  const page = pages.some(([p]) => p === route.page) ? route.page : 'insights';
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}
      >
        Skip to content
      </a>
      <header class="top">
        <span class="brand">flaglens</span>
        <nav aria-label="Pages">
          <ul>
            {pages.map(([p, label]) => (
              <li key={p}>
                <a href={href(p)} aria-current={p === page ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {profile.rootRole.name}
          <button
            type="button"
            onClick={() => {
              clearToken();
              setProfile(null);
            }}
          >
            Sign out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {page === 'insights' && <InsightsPage route={route} />}
        {page === 'flag' && <FlagPage route={route} />}
        {page === 'events' && <EventsPage route={route} />}
        {page === 'project' && <ProjectPage route={route} />}
        {page === 'profile' && <ProfilePage route={route} />}
        {page === 'operations' && <OperationsPage />}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
