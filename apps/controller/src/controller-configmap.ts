/**
 * The controller ConfigMap (`--configmap`): read again whenever it changes, its annotation
 * defaults handed to the Ingress routing (live: re-translation, no reload) and its nginx.conf
 * settings to the data plane (a reload), every key it cannot apply an Event on the ConfigMap. A
 * value that is not valid keeps the last valid one; a deleted ConfigMap means the defaults. The
 * ConfigMaps it names (add-headers, proxy-set-headers) are read with it, and a change to one of
 * them reads it again.
 */
import { isDeepStrictEqual } from 'node:util';
import { namespacedKey } from '@ingresskit/kube-objects';
import {
  DEFAULT_TRANSLATION,
  parseControllerConfigMap,
  type ConfigMapNginxSettings,
  type ControllerConfigMapSettings,
  type TranslationDefaults,
} from '@ingresskit/ingress-routes';
import type { ClusterView } from './cluster-view.js';
import type { EventRecorder, EventSubject } from './events.js';
import type { Logger } from './logger.js';

/** The Event subject of a ConfigMap. */
export function configMapSubject(configMap: {
  metadata: { namespace?: string; name: string; uid?: string; resourceVersion?: string };
}): EventSubject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: configMap.metadata.namespace,
    name: configMap.metadata.name,
    uid: configMap.metadata.uid,
    resourceVersion: configMap.metadata.resourceVersion,
  };
}

/** What changed in the ConfigMap since it was last read. */
export interface ConfigMapChange {
  translation?: TranslationDefaults;
  nginx?: ConfigMapNginxSettings;
}

/** Reads the controller ConfigMap when it changes; routing and the data plane get its settings. */
export class ControllerConfigMap {
  readonly key: string;
  readonly #recorder: EventRecorder;
  readonly #logger: Logger;
  readonly #isLeader: () => boolean;
  /** The valid values last read, by key: what an invalid value falls back to. */
  #values: Readonly<Record<string, string>> = {};
  #settings: ControllerConfigMapSettings = { translation: DEFAULT_TRANSLATION, nginx: {} };
  /** The ConfigMaps it names (add-headers, proxy-set-headers), read with it. */
  #reads: ReadonlySet<string> = new Set();

  constructor(key: string, options: { recorder: EventRecorder; logger: Logger; isLeader: () => boolean }) {
    this.key = key;
    this.#recorder = options.recorder;
    this.#logger = options.logger;
    this.#isLeader = options.isLeader;
  }

  /** Whether the ConfigMap `key` is one the controller ConfigMap names: a change to it is read. */
  isReading(key: string): boolean {
    return this.#reads.has(key);
  }

  /** Reads the ConfigMap from `view` and reports its problems; returns what changed. */
  read(view: ClusterView): ConfigMapChange {
    const configMap = view.configMap(this.key);
    const { settings, values, problems, configMaps } = parseControllerConfigMap(
      configMap?.data,
      this.#values,
      (namespace, name) => view.configMap(namespacedKey(namespace, name)),
    );
    this.#values = values;
    this.#reads = new Set(configMaps);
    for (const problem of problems) {
      this.#logger.warn({ configMap: this.key, ...problem }, 'controller ConfigMap key not applied');
      // Every replica reads the ConfigMap; one of them says so.
      if (configMap === undefined || !this.#isLeader()) continue;
      this.#recorder.record({
        regarding: configMapSubject(configMap),
        type: 'Warning',
        reason: problem.severity === 'error' ? 'InvalidConfiguration' : 'UnsupportedKey',
        action: 'Configure',
        note: `${problem.field}: ${problem.message}`,
      });
    }
    const change: ConfigMapChange = {};
    if (!isDeepStrictEqual(settings.translation, this.#settings.translation))
      change.translation = settings.translation;
    if (!isDeepStrictEqual(settings.nginx, this.#settings.nginx)) change.nginx = settings.nginx;
    this.#settings = settings;
    return change;
  }
}
