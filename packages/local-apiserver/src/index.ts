export { matchesLabels, parseLabelSelector, type LabelRequirement } from './label-selector.js';
