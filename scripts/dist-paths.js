// Resolves the @flaglens/* path aliases of tsconfig.json inside the compiled output (dist/).
const { join } = require('node:path');
const { register } = require('tsconfig-paths');
const { compilerOptions } = require('../tsconfig.json');
register({ baseUrl: join(__dirname, '..', 'dist'), paths: compilerOptions.paths });
