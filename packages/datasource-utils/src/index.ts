// @toolrow/datasource-utils: what engines share at run time beside the contract (@toolrow/datasource),
// as @ai-sdk/provider-utils sits beside @ai-sdk/provider. See README.md.
export { type CommitDialect, checkChanges, commitChanges, type RowNow } from './commit.ts';
export {
  createExportRunner,
  createMemoryExportJobStore,
  type ExportBody,
  type ExportPiece,
  type PlannedExport,
  resolveExportPath,
  rowBody,
} from './export-jobs.ts';
export {
  describeValue,
  filterColumns,
  MAX_FILTER_CONDITIONS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_LIST,
  normalizeKey,
  validateFilter,
  validateSort,
} from './filter-check.ts';
export { ensurePrivateDir, ownerOnlyTree } from './private-dir.ts';
export { REFERENCING_LIMIT, type ReadReferencing, referencedDeletes } from './referenced.ts';
export {
  checkSeedOrders,
  DAY_MS,
  generateSampleShop,
  type SampleColumns,
  sampleCounts,
  sampleShopAsFound,
} from './sample-shop.ts';
