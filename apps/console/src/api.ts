/** The api, called with the signed-in token (kept in sessionStorage, sent as the Authorization header only). */
const TOKEN_KEY = 'flaglens.token';

export function storedToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function clearToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** GET a JSON document from the api; a 401 signs out (the token was revoked or expired). */
export async function getJson<T>(path: string, token = storedToken()): Promise<T> {
  const res = await fetch(path, {
    headers: { authorization: token ?? '', accept: 'application/json' },
    cache: 'no-cache',
    credentials: 'omit',
  });
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try {
      const body = (await res.json()) as { message?: string };
      if (body.message) message = body.message;
    } catch {
      // not JSON: keep the status line
    }
    if (res.status === 401 && token === storedToken()) window.dispatchEvent(new Event('flaglens:signed-out'));
    throw new ApiFailure(res.status, message);
  }
  return (await res.json()) as T;
}

export interface Profile {
  projects: string[];
  rootRole: { id: number; name: string; type: string };
}

export interface FlagTrend {
  date: string;
  total: number;
  active: number;
  stale: number;
  potentiallyStale: number;
}
export interface ProjectFlagTrend extends FlagTrend {
  week: string;
  project: string;
  health: number;
  timeToProduction?: number;
  users?: number;
}
export interface UserTrend {
  date: string;
  total: number;
  active: number;
  inactive: number;
}
export interface MetricsSummaryTrend {
  week: string;
  date: string;
  project: string;
  totalRequests: number;
  totalYes: number;
  totalNo: number;
  totalApps: number;
  totalFlags: number;
  totalEnvironments: number;
}
export interface EnvironmentTypeTrend {
  date: string;
  week: string;
  environmentType: string;
  totalUpdates: number;
}
export interface Insights {
  userTrends: UserTrend[];
  flagTrends: FlagTrend[];
  projectFlagTrends: ProjectFlagTrend[];
  metricsSummaryTrends: MetricsSummaryTrend[];
  environmentTypeTrends: EnvironmentTypeTrend[];
}

export interface Tag {
  type: string;
  value: string;
}
export interface FeatureEvent {
  id: number;
  createdAt: string;
  type: string;
  createdBy: string;
  createdByUserId: number | null;
  environment: string | null;
  project: string | null;
  featureName: string | null;
  data: unknown;
  preData: unknown;
  tags: Tag[] | null;
}
/** An event of the search route: the event list's JSON with Unleash's `label` and markdown `summary`. */
export interface SearchedEvent extends FeatureEvent {
  label: string;
  summary: string;
}
