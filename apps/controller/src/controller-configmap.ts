/**
 * The controller ConfigMap (`--configmap`): read again whenever it changes, its annotation
 * defaults handed to the Ingress routing (live: re-translation, no reload) and its nginx.conf
 * settings to the data plane (a reload), every key it cannot apply an Event on the ConfigMap. A
 * value that is not valid keeps the last valid one; a deleted ConfigMap means the defaults. The
 * ConfigMaps it names (add-headers, proxy-set-headers) and the Secret of ssl-dh-param are read
 * with it, and a change to one of them reads it again.
 */
import { isDeepStrictEqual } from 'node:util';
import { namespacedKey } from '@ingresskit/kube-objects';
import {
  DEFAULT_TRANSLATION,
  parseControllerConfigMap,
  type ConfigMapNginxSettings,
  type ControllerConfigMapSettings,
  type SecretData,
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
  /** The content of the Secrets last applied: what a Secret that turned bad falls back to. */
  #secretData: SecretData = {};
  #settings: ControllerConfigMapSettings = { translation: DEFAULT_TRANSLATION, nginx: {} };
  /** The ConfigMaps it names (add-headers, proxy-set-headers), read with it. */
  #reads: ReadonlySet<string> = new Set();
  /** The Secrets it names (ssl-dh-param), read with it. */
  #secretReads: ReadonlySet<string> = new Set();
  /** Secrets the store is reading for it: until one arrives its absence is not reported. */
  #arriving: ReadonlySet<string> = new Set();
  readonly #keepSecrets: (keys: readonly string[]) => readonly string[];

  constructor(
    key: string,
    options: {
      recorder: EventRecorder;
      logger: Logger;
      isLeader: () => boolean;
      /**
       * Asks the store to keep the Secrets the ConfigMap names (it keeps only TLS ones otherwise);
       * returns those it is reading, each arriving as a change.
       */
      keepSecrets?: (keys: readonly string[]) => readonly string[];
    },
  ) {
    this.key = key;
    this.#recorder = options.recorder;
    this.#logger = options.logger;
    this.#isLeader = options.isLeader;
    this.#keepSecrets = options.keepSecrets ?? (() => []);
  }

  /** Whether the Secret `key` is one the controller ConfigMap names: a change to it is read. */
  isReadingSecret(key: string): boolean {
    return this.#secretReads.has(key);
  }

  /** Whether the ConfigMap `key` is one the controller ConfigMap names: a change to it is read. */
  isReading(key: string): boolean {
    return this.#reads.has(key);
  }

  /** Reads the ConfigMap from `view` and reports its problems; returns what changed. */
  read(view: ClusterView): ConfigMapChange {
    const configMap = view.configMap(this.key);
    const { settings, values, problems, configMaps, secrets, secretData } = parseControllerConfigMap(
      configMap?.data,
      this.#values,
      (namespace, name) => view.configMap(namespacedKey(namespace, name)),
      (namespace, name) => view.secret(namespacedKey(namespace, name))?.data,
      this.#secretData,
    );
    this.#values = values;
    this.#secretData = secretData;
    this.#reads = new Set(configMaps);
    const arriving = isDeepStrictEqual(secrets, [...this.#secretReads])
      ? this.#arriving
      : this.#keepSecrets(secrets);
    this.#arriving = new Set([...arriving].filter((key) => view.secret(key) === undefined));
    this.#secretReads = new Set(secrets);
    for (const problem of problems) {
      // Its Secret is on its way, and its arrival reads the ConfigMap again.
      if (problem.value !== undefined && this.#arriving.has(problem.value)) {
        this.#logger.debug({ configMap: this.key, secret: problem.value }, 'waiting for a Secret it names');
        continue;
      }
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
