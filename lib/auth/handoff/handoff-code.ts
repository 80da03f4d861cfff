// What a handoff code stands for while it lives, declared with its key (lib/keys/defs/single-use.ts).
export { handoffSchema } from '../../keys/index.ts';
