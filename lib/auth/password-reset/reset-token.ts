// What a password-reset token stands for while it lives, declared with its key (lib/keys/defs/single-use.ts).
export { resetSchema } from '../../keys/index.ts';
