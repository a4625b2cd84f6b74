import { definePackageConfig } from '../../tsup.base.js';

export default definePackageConfig();
