import type { ControllerDefinition } from '../types';
export const deploymentController: ControllerDefinition = { name: 'deployment', async start() {} };
