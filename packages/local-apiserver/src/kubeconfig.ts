/** Kubeconfigs for the local server: a client-node KubeConfig, or YAML and a file for kubectl. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';

/** Names and credentials written into a kubeconfig for the local server. */
export interface KubeconfigOptions {
  /** Cluster, user and context name (default `local-apiserver`). */
  name?: string;
  /** The context's default namespace (default `default`). */
  namespace?: string;
  /** Bearer token sent by clients; the server accepts any (default `local-apiserver`). */
  token?: string;
}

/**
 * A client-node KubeConfig for a plain-HTTP server at `url`: `skipTLSVerify` is set (client-node
 * refuses `http://` without it) and a token user is present (without a user the TLS options are skipped).
 */
export function createKubeConfig(url: string, options: KubeconfigOptions = {}): KubeConfig {
  const name = options.name ?? 'local-apiserver';
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name, server: url, skipTLSVerify: true }],
    users: [{ name, token: options.token ?? 'local-apiserver' }],
    contexts: [{ name, cluster: name, user: name, namespace: options.namespace ?? 'default' }],
    currentContext: name,
  });
  return kubeConfig;
}

/** The same kubeconfig as YAML, for kubectl and `KUBECONFIG`. */
export function buildKubeconfigYaml(url: string, options: KubeconfigOptions = {}): string {
  const name = options.name ?? 'local-apiserver';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    users: [{ name, user: { token: options.token ?? 'local-apiserver' } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: options.namespace ?? 'default' } }],
    'current-context': name,
    preferences: {},
  });
}

/** Writes the kubeconfig YAML to `path` (default: a new temp directory) and returns the path. */
export async function writeKubeconfigFile(
  url: string,
  path?: string,
  options: KubeconfigOptions = {},
): Promise<string> {
  const target = path ?? join(await mkdtemp(join(tmpdir(), 'local-apiserver-')), 'kubeconfig');
  await writeFile(target, buildKubeconfigYaml(url, options), { mode: 0o600 });
  return target;
}
