// Tool search in the words users write: the held-out requests (other languages, typos, synonyms,
// DynamoDB's words) against the recall the issue asks for, the tokenizer's rules one by one, and
// the promise that a query matching nothing finds nothing.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cjkUnigrams,
  deletions,
  foldText,
  isFuzzyCandidate,
  stem,
  terms,
  withinOneEdit,
} from '@toolrow/catalog/search';
import { WORD_LANGUAGES } from '@toolrow/declarations';
import { dynamodbEngine } from '@toolrow/dynamodb/engine';
import { describe, expect, it } from 'vitest';
import { HELD_OUT_REQUESTS, type HeldOutLanguage } from '../../test/held-out-requests.ts';
import { SearchIndex, searchCatalog } from './scorer.ts';

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));
// Connections as the catalog sees them: an engine's id (its users' words) and its features.
const DYNAMODB = { engine: dynamodbEngine.id, features: dynamodbEngine.features };
const POSTGRES = { engine: 'postgres', features: ['foreignKeys'] };
// English (the rows' keywords) and every language the rows carry words in.
const LANGUAGES: HeldOutLanguage[] = ['en', ...WORD_LANGUAGES];

function recall(requests: readonly (typeof HELD_OUT_REQUESTS)[number][]) {
  let at1 = 0;
  let at3 = 0;
  const misses: string[] = [];
  for (const request of requests) {
    const names = searchCatalog(request.query, {
      limit: 5,
      ...(request.engine ? { engine: request.engine } : {}),
    }).map((match) => match.name);
    if (names[0] === request.expected) at1++;
    if (names.slice(0, 3).includes(request.expected)) at3++;
    else misses.push(`${request.query} → ${names.join(', ') || '(nothing)'} (expected ${request.expected})`);
  }
  return { at1: at1 / requests.length, at3: at3 / requests.length, misses };
}

describe('held-out requests, never used to tune the rows or the scorer', () => {
  it('hold at least 300 requests in twenty languages, with typos, synonyms, DynamoDB words and paraphrases', () => {
    expect(HELD_OUT_REQUESTS.length).toBeGreaterThanOrEqual(300);
    expect(new Set(HELD_OUT_REQUESTS.map((request) => request.language))).toEqual(new Set(LANGUAGES));
    expect(new Set(HELD_OUT_REQUESTS.map((request) => request.kind))).toEqual(
      new Set(['typo', 'synonym', 'language', 'engine', 'paraphrase']),
    );
  });

  it('no code but this test and the benchmark reads them (so nothing is tuned on them)', () => {
    const readers: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.name === 'node_modules' || entry.name === 'dist') continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.ts$/.test(entry.name) && readFileSync(path, 'utf8').includes('held-out-requests'))
          readers.push(relative(PACKAGE, path));
      }
    };
    walk(PACKAGE);
    expect(readers.sort()).toEqual(['bench/search.ts', 'src/search/held-out.test.ts']);
    expect(readFileSync(join(PACKAGE, 'src/index.ts'), 'utf8')).not.toContain('held-out');
  });

  it('recall@3 ≥ 95% and recall@1 ≥ 90% over all of them', () => {
    const { at1, at3, misses } = recall(HELD_OUT_REQUESTS);
    expect(at3, misses.join('\n')).toBeGreaterThanOrEqual(0.95);
    expect(at1).toBeGreaterThanOrEqual(0.9);
  });

  it('requests led by a verb (change, add, remove, export, count, explain) find the act: recall@1 ≥ 75%, @3 ≥ 90%', () => {
    const { at1, at3, misses } = recall(HELD_OUT_REQUESTS.filter((request) => request.kind === 'paraphrase'));
    expect(at3, misses.join('\n')).toBeGreaterThanOrEqual(0.9);
    expect(at1).toBeGreaterThanOrEqual(0.75);
  });

  it.each(LANGUAGES)('recall@3 ≥ 90% in %s', (language) => {
    const { at3, misses } = recall(HELD_OUT_REQUESTS.filter((request) => request.language === language));
    expect(at3, misses.join('\n')).toBeGreaterThanOrEqual(0.9);
  });
});

describe('tokenizing every script the rows carry', () => {
  it.each([
    ['把结果导出为JSON', ['把结', '结果', '果导', '导出', '出为', 'json']],
    ['結果をCSVでエクスポート', ['結果', '果を', 'csv', 'でエ', 'エク', 'クス', 'スポ', 'ポー', 'ート']],
    ['내보내기 진행', ['내보', '보내', '내기', '진행']],
    ['表', ['表']],
    ['ＣＳＶで', ['csv', 'で']],
    ['Exportación de índices', ['exportacion', 'indic']],
    ['Fremdschlüssel löschen', ['fremdschlussel', 'loschen']],
    ["plan d'exécution", ['plan', 'execution']],
    ['list the GSIs', ['list', 'gsi']],
    ['gespeicherten Abfragen', ['gespeichert', 'abfrag']],
  ])('%s → %j', (text, expected) => {
    expect(terms(text)).toEqual(expected);
  });

  it('adds CJK unigrams for one-character words, and only for CJK', () => {
    expect(cjkUnigrams('哪些列')).toEqual(['哪', '些', '列']);
    expect(cjkUnigrams('export csv')).toEqual([]);
  });

  it('folds full-width forms and Latin accents, never kana or Hangul marks', () => {
    expect(foldText('ＡＢＣ１２３')).toBe('abc123');
    expect(foldText('Ñandú Ärger œuvre Straße')).toBe('nandu arger oeuvre strasse');
    expect(foldText('が')).toBe('が');
    expect(foldText('한글')).toBe('한글');
  });

  it('keeps its stemming consistent: a word and its inflections meet', () => {
    const pairs: [string, string][] = [
      ['exports', 'exporting'],
      ['Tabellen', 'Tabelle'],
      ['relaciones', 'relación'],
    ];
    for (const [a, b] of pairs) expect(stem(foldText(a))).toBe(stem(foldText(b)));
  });
});

describe('typos', () => {
  it.each([
    ['explain', 'expalin', true], // two letters swapped
    ['audit', 'auidt', true],
    ['export', 'exprot', true],
    ['delete', 'delte', true], // one letter dropped
    ['staged', 'stagged', true], // one letter doubled
    ['index', 'indez', true], // one letter changed
    ['explain', 'xplian', false], // two edits
    ['table', 'tbale', true],
  ])('%s / %s within one edit: %s', (word, typo, within) => {
    expect(withinOneEdit(word, typo)).toBe(within);
    expect(withinOneEdit(typo, word)).toBe(within);
  });

  it('only words of five letters or more are matched fuzzily', () => {
    expect(isFuzzyCandidate('expalin')).toBe(true);
    expect(isFuzzyCandidate('csb')).toBe(false);
    expect(isFuzzyCandidate('tabl')).toBe(false);
    expect(searchCatalog('csb')).toEqual([]);
  });

  it('a typo finds the tool, scored below the word spelled right', () => {
    const index = new SearchIndex();
    const typo = index.rank('expalin the plan')[0]!;
    const right = index.rank('explain the plan')[0]!;
    expect(typo.name).toBe('explainQuery');
    expect(right.name).toBe('explainQuery');
    expect(typo.score).toBeLessThan(right.score);
  });

  it('deletions are what a typo and its word share', () => {
    expect(deletions('abc')).toEqual(['bc', 'ac', 'ab']);
    expect(deletions('aab')).toEqual(['ab', 'aa']);
  });
});

describe('honest ranking', () => {
  it.each(['xyzzy plugh', 'asdfghjkl', '你好世界', 'こんにちは', '안녕하세요', 'qwertz uiop'])(
    '%s matches no tool, so none is returned',
    (query) => {
      expect(searchCatalog(query)).toEqual([]);
      expect(searchCatalog(query, { engine: DYNAMODB })).toEqual([]);
    },
  );

  it("an engine's words find its tools only on that engine", () => {
    expect(searchCatalog('which GSIs does orders have', { engine: DYNAMODB })[0]?.name).toBe('describeTable');
    expect(searchCatalog('GSIs and LSIs', { engine: DYNAMODB })[0]?.name).toBe('describeTable');
    expect(searchCatalog('GSIs and LSIs', { engine: POSTGRES })).toEqual([]);
  });
});
