export type DebianPart = {
  name: string;
  why: string;
  packages: string[];
  commands?: string[];
  paths?: string[];
  ruby?: string[];
};
export const DEBIAN_PARTS: DebianPart[];
export function hasPart(part: DebianPart): boolean;
export function requireDebianPart(name: string): void;
