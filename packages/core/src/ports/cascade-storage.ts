/** Cascade: routes, variables and short URLs. Filled in by the cascade work. */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface CascadeStorage {}
