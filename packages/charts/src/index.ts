export {
  type BindOptions,
  type BoundChart,
  bindChart,
  type ChartRows,
  chartMarks,
  checkChartShape,
  MAX_CHART_POINTS,
} from './bind.ts';
export { refusedLoadCount, refusingLoader } from './loader.ts';
export { checkExpression, refuseOutside, VEGA_LITE_SCHEMA_URLS } from './outside.ts';
export { ChartRefusal, type ChartRefusalCode, isChartRefusal } from './refusal.ts';
export { checkAgainstVegaLiteSchema, vegaLiteMarks } from './schema.ts';
