// @toolrow/tools/testing: what other packages' tests need to attack the SQL paths the same way.
export { ATTACKS, type Attack, type AttackEffect } from './attack-corpus.ts';
