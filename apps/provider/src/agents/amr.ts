/**
 * How an agent's sign-in is described to relying parties: `amr: ["agent"]` in its ID token (and
 * the ID tokens of its refreshes). RFC 8176 registers no value for "a program signed an assertion
 * with its own key"; `agent` is Signet's, documented in docs/relying-parties.md ("Agents"), so a
 * relying party can tell a program from a person signing in with the same wallet (the `sub` is the
 * same: it is the same key). A person's wallet sign-in names no `amr`; a passkey's names its own
 * values (passkeys/amr.ts): the three never mix, each sign-in has one source.
 */
export const AGENT_AMR_VALUE = 'agent';
export const AGENT_AMR: string[] = [AGENT_AMR_VALUE];
