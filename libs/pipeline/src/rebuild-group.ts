/** The consumer group a rebuild of `version` stores its positions under (in the new version's schema). */
export const rebuildGroupOf = (liveGroupId: string, version: number) => `${liveGroupId}.rebuild.v${version}`;
