/**
 * `ingresskit checksum publish --namespace NS`: the control-plane side of the Tengine-compatible
 * checksum. Computes the ids of the Ingresses the controller owns, creates a new IngressCheckSum
 * with their checksum, then deletes the older ones (any object that is not the newest would only
 * confuse readers that accept a match with any of them).
 */
import { buildIngressCheckSum, ingressCheckSumResource, ingressConfigId } from '@ingresskit/checksum';
import { createIngressClassResolver } from '@ingresskit/class-resolution';
import { CustomObjectsApi, NetworkingV1Api, type V1Ingress } from '@kubernetes/client-node';
import { describeApiFailure } from '../api-failure.js';
import { resolveControllerConfig } from '../config.js';
import { FlagError } from '../errors.js';
import { classFlagNames } from '../flags.js';
import { loadKubeConfig } from '../kube-config.js';
import { ExitCode, type Command } from './command.js';

interface ChecksumObjectList {
  items?: { metadata?: { name?: string } }[];
}

export const checksumCommand: Command = {
  name: 'checksum publish',
  summary: 'publish a new IngressCheckSum for the Ingresses the controller owns, and remove the old ones',
  usage: `Usage: ingresskit checksum publish --namespace NS [flags]

Lists the Ingresses (in --watch-namespace, or all), keeps those the controller owns (use the same
class flags as the controller), computes their Tengine-compatible ids ("<name suffix>-<version
annotation>"; Ingresses without both do not take part) and creates a new IngressCheckSum in NS
with their md5. Then deletes every other IngressCheckSum in NS. Controllers started with
--enable-ingress-checksum serve a changed configuration only once it matches the newest one.`,
  spec: {
    command: 'ingresskit checksum publish',
    flags: ['kubeconfig', 'namespace', 'watch-namespace', ...classFlagNames, 'dry-run', 'output'],
  },
  async run({ flags }, io) {
    if (flags.namespace === '')
      throw new FlagError('--namespace is required: where the IngressCheckSum is created');
    const config = resolveControllerConfig(flags, io.env);
    const kubeConfig = loadKubeConfig(flags.kubeconfig);
    try {
      const networking = kubeConfig.makeApiClient(NetworkingV1Api);
      const customObjects = kubeConfig.makeApiClient(CustomObjectsApi);

      const classes = (await networking.listIngressClass()).items;
      const ingresses: V1Ingress[] =
        config.watchNamespaces.length === 0
          ? (await networking.listIngressForAllNamespaces()).items
          : (
              await Promise.all(
                config.watchNamespaces.map((namespace) => networking.listNamespacedIngress({ namespace })),
              )
            ).flatMap((list) => list.items);
      const resolver = createIngressClassResolver(classes, config.classConfig);
      const ids: string[] = [];
      const skipped: string[] = [];
      let owned = 0;
      for (const ingress of ingresses) {
        if (!resolver.resolve(ingress).owned) continue;
        owned += 1;
        const result = ingressConfigId(ingress);
        if (result.id === undefined) skipped.push(result.message);
        else ids.push(result.id);
      }
      const body = buildIngressCheckSum(ids, { namespace: flags.namespace, now: new Date() });
      const existing =
        (
          (await customObjects.listNamespacedCustomObject({
            ...ingressCheckSumResource,
            namespace: flags.namespace,
          })) as ChecksumObjectList
        ).items ?? [];
      const old = existing
        .map((item) => item.metadata?.name)
        .filter((name): name is string => name !== undefined);

      if (flags['dry-run']) {
        io.stdout(
          flags.output === 'json'
            ? `${JSON.stringify({ create: body, delete: old }, null, 2)}\n`
            : describe(
                body.spec.checksum,
                ids.length,
                owned,
                skipped,
                '(dry run) would create',
                old,
                'would delete',
              ),
        );
        return ExitCode.ok;
      }
      const created = (await customObjects.createNamespacedCustomObject({
        ...ingressCheckSumResource,
        namespace: flags.namespace,
        body,
      })) as { metadata?: { name?: string } };
      const name = created.metadata?.name ?? '(unnamed)';
      for (const oldName of old) {
        await customObjects.deleteNamespacedCustomObject({
          ...ingressCheckSumResource,
          namespace: flags.namespace,
          name: oldName,
        });
      }
      if (flags.output === 'json') {
        io.stdout(
          `${JSON.stringify({ created: `${flags.namespace}/${name}`, checksum: body.spec.checksum, ids, skipped, deleted: old }, null, 2)}\n`,
        );
      } else {
        io.stdout(
          describe(
            body.spec.checksum,
            ids.length,
            owned,
            skipped,
            `created IngressCheckSum ${flags.namespace}/${name}`,
            old,
            'deleted',
          ),
        );
      }
      return ExitCode.ok;
    } catch (error) {
      throw new Error(describeApiFailure(kubeConfig.getCurrentCluster()?.server, error), { cause: error });
    }
  },
};

function describe(
  checksum: string,
  idCount: number,
  owned: number,
  skipped: readonly string[],
  action: string,
  old: readonly string[],
  deleteVerb: string,
): string {
  const lines = [
    `${action}: checksum ${checksum} over ${idCount} id(s) from ${owned} owned Ingress(es)`,
    `${deleteVerb} ${old.length} older IngressCheckSum(s)${old.length > 0 ? `: ${old.join(', ')}` : ''}`,
  ];
  for (const message of skipped) lines.push(`not included: ${message}`);
  return `${lines.join('\n')}\n`;
}
