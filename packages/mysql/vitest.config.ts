import { toolrowProject } from '../../vitest.shared.ts';

export default toolrowProject(import.meta.dirname);
