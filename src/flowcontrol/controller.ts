/**
 * The APF config controller (kube's configController): FlowSchemas and PriorityLevelConfigurations
 * are read through the Registry (list, then watch) and every change is digested into the
 * FlowControl at once, so new schemas and changed levels apply without a restart. Like kube, it
 * keeps each FlowSchema's `Dangling` status condition true while the level it names is missing.
 */
import type { Logger } from 'pino';
import type { KindDefinition, KubeObject } from '../api/kind';
import type { Registry } from '../api/registry/types';
import { RegistryInformer } from '../aggregator/registry-informer';
import type { FlowControl } from './flow-control';

export interface FlowControlControllerOptions {
  registry: Registry;
  flowControl: FlowControl;
  kinds: { flowSchemas: KindDefinition; priorityLevels: KindDefinition };
  logger: Logger;
}

/** the field manager kube's controller writes status with */
const FIELD_MANAGER = 'api-priority-and-fairness-config-consumer-v1';

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

export function danglingCondition(levelName: string, levelExists: boolean): Required<Condition> {
  return levelExists
    ? { type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named "${levelName}" and it exists` }
    : { type: 'Dangling', status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named "${levelName}" but there is no such object` };
}

export class FlowControlController {
  readonly #o: FlowControlControllerOptions;
  readonly #schemas: RegistryInformer;
  readonly #levels: RegistryInformer;
  #pending = false;
  /** conditions asked for and not yet seen back, by schema name, so a change is written once */
  readonly #written = new Map<string, string>();

  constructor(o: FlowControlControllerOptions) {
    this.#o = o;
    const changed = (): void => this.#schedule();
    const onError = (what: string) => (err: unknown) => o.logger.warn({ err }, `priority and fairness: ${what} informer failed; retrying`);
    this.#schemas = new RegistryInformer({ registry: o.registry, kind: o.kinds.flowSchemas, onChange: changed, onError: onError('FlowSchema') });
    this.#levels = new RegistryInformer({ registry: o.registry, kind: o.kinds.priorityLevels, onChange: changed, onError: onError('PriorityLevelConfiguration') });
  }

  /** start both informers; resolves once both have listed and the configuration is in force */
  async start(): Promise<void> {
    this.#schemas.start();
    this.#levels.start();
    await Promise.all([this.#schemas.synced, this.#levels.synced]);
    this.#digest();
  }

  stop(): void {
    this.#schemas.stop();
    this.#levels.stop();
  }

  /** coalesce the events of one burst (a list, an apply of several objects) into one digest */
  #schedule(): void {
    if (this.#pending) return;
    this.#pending = true;
    setImmediate(() => {
      this.#pending = false;
      this.#digest();
    });
  }

  #digest(): void {
    const schemas = this.#schemas.list();
    const levels = this.#levels.list();
    this.#o.flowControl.update(schemas, levels);
    const levelNames = new Set(levels.map((l) => l.metadata?.name));
    for (const fs of schemas) this.#syncDangling(fs, levelNames);
  }

  #syncDangling(fs: KubeObject, levelNames: Set<unknown>): void {
    const name = String(fs.metadata?.name ?? '');
    const spec = (fs.spec ?? {}) as { priorityLevelConfiguration?: { name?: string } };
    const levelName = spec.priorityLevelConfiguration?.name ?? '';
    const wanted = danglingCondition(levelName, levelNames.has(levelName));
    const conditions = ((fs.status as { conditions?: Condition[] } | undefined)?.conditions ?? []);
    const have = conditions.find((c) => c.type === 'Dangling');
    if (have && have.status === wanted.status && have.reason === wanted.reason && have.message === wanted.message) {
      this.#written.delete(name);
      return;
    }
    const key = JSON.stringify(wanted);
    if (this.#written.get(name) === key) return;
    this.#written.set(name, key);
    const condition = { ...wanted, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
    const others = conditions.filter((c) => c.type !== 'Dangling');
    const patch = JSON.stringify({ status: { conditions: [...others, condition] } });
    this.#o.registry
      .patchStatus({ kind: this.#o.kinds.flowSchemas, name }, 'merge', patch, { dryRun: false, fieldManager: FIELD_MANAGER })
      .catch((err: unknown) => {
        // a schema deleted meanwhile, or a conflict: the next event of this schema tries again
        this.#written.delete(name);
        this.#o.logger.debug({ err, flowSchema: name }, 'priority and fairness: status update failed');
      });
  }
}
