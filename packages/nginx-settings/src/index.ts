export {
  HTTP_WHOLE_NUMBER_RANGES,
  isInRange,
  type HttpOptions,
  type HttpWholeNumber,
  type WholeRange,
} from './http-options.js';
