import { useEffect, useState } from 'preact/hooks';
import { getJson, type Profile } from './api';
import { CompareAnswers } from './answer-compare';
import { parseInstant } from './as-of';
import { href, type Route } from './route';
import { TimeControl } from './time-control';

/**
 * The signed-in user's profile (`GET /api/admin/user/profile`): their root role and the projects they are a
 * member of, as of now or an instant (`at`), and the profile compared between two instants.
 */
export function ProfilePage({ route }: { route: Route }) {
  const at = parseInstant(route.params.get('at'));
  const [profile, setProfile] = useState<Profile | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setProfile(null);
    setError(null);
    getJson<Profile>(`/api/admin/user/profile${at ? `?at=${encodeURIComponent(at)}` : ''}`)
      .then((p) => live && setProfile(p))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [at]);
  const view = { at, t1: parseInstant(route.params.get('t1')), t2: parseInstant(route.params.get('t2')) };
  return (
    <>
      <h1>Your profile</h1>
      <TimeControl at={at} go={(next) => (location.hash = href('profile', '', { ...view, at: next }))} />
      {error && (
        <p role="alert" class="error">
          Could not load the profile: {error}
        </p>
      )}
      {!profile && !error && <p aria-live="polite">Loading the profile…</p>}
      {profile && (
        <div class="cards">
          <section class="card" aria-labelledby="root-role">
            <h2 id="root-role">Root role</h2>
            <p class="big" data-value={profile.rootRole.name}>
              {profile.rootRole.name}
            </p>
          </section>
          <section class="card" aria-labelledby="member-of">
            <h2 id="member-of">Projects you are a member of</h2>
            <ul class="plain">
              {profile.projects.map((p) => (
                <li key={p} data-project={p}>
                  <a href={href('project', p, { at })}>{p}</a>
                </li>
              ))}
              {profile.projects.length === 0 && <li class="muted">None.</li>}
            </ul>
          </section>
        </div>
      )}
      <CompareAnswers
        path="/api/admin/user/profile"
        what="profile"
        t1={view.t1}
        t2={view.t2}
        go={(t1, t2) => (location.hash = href('profile', '', { at, t1, t2 }))}
      />
    </>
  );
}
