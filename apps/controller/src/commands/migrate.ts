/**
 * `ingresskit migrate (--manifests DIR | --kubeconfig FILE)`: for every Ingress ingress-nginx
 * serves, whether IngressKit serves it identically, with differences, or not at all, and why.
 */
import { stringify } from 'yaml';
import type { ClassResolutionConfig } from '@ingresskit/class-resolution';
import type { IngressClass } from '@ingresskit/store';
import { viewOfObjects, viewOfSnapshot, type ClusterObjects, type ClusterView } from '../cluster-view.js';
import { resolveControllerConfig } from '../config.js';
import { listenersOf } from '../data-plane.js';
import { tenancyFlagNames, classFlagNames } from '../flags.js';
import { routeAll, routingOptionsOf } from '../ingress-routing.js';
import { readManifests, toClusterObjects } from '../manifests.js';
import { assessMigration, formatMigrationReport } from '../migration.js';
import { ExitCode, type Command } from './command.js';
import { withClusterSnapshot } from './read-cluster.js';

/**
 * The objects of a manifest directory, with ingress-nginx's IngressClass added when the directory
 * does not hold it: the Ingresses name it, and it exists in the cluster they come from.
 */
function withIngressClass(objects: ClusterObjects, classes: ClassResolutionConfig): ClusterObjects {
  const name = classes.ingressClass;
  if (objects.ingressClasses.some((ingressClass) => ingressClass.metadata.name === name)) return objects;
  const ingressClass = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name, resourceVersion: '0', creationTimestamp: '2020-01-01T00:00:00Z' },
    spec: { controller: classes.controllerClass },
  } as IngressClass;
  return { ...objects, ingressClasses: [...objects.ingressClasses, ingressClass] };
}

export const migrateCommand: Command = {
  name: 'migrate',
  summary: "tell, per Ingress of ingress-nginx's class, whether IngressKit serves it the same way",
  usage: `Usage: ingresskit migrate --manifests DIR [flags]
       ingresskit migrate [--kubeconfig FILE] [flags]

Reads the Ingresses (with their IngressClasses, Services, EndpointSlices and Secrets) of a
directory of manifests, or of the cluster when --manifests is not given, picks those ingress-nginx
serves (its class flags and defaults: class "nginx", controller k8s.io/ingress-nginx; a manifest
directory without that IngressClass is read as if it held it), and prints for each one:
  served identically        IngressKit serves it as ingress-nginx does
  served with differences   it is served, and each difference is listed (an annotation served
                            differently or ignored, a path or a host left out)
  not served                IngressKit leaves it out, with the reason and what to do
Run it with the same --annotations-prefix and tenancy flags the controller will run with.
--output=json or yaml prints the report as data. Exits 1 when an Ingress would not be served.`,
  spec: {
    command: 'ingresskit migrate',
    flags: [
      'manifests',
      'kubeconfig',
      'watch-namespace',
      ...classFlagNames,
      'annotations-prefix',
      'default-backend-service',
      ...tenancyFlagNames,
      'output',
    ],
    // ingress-nginx's own class settings, so the report covers what it served.
    defaults: { 'controller-class': 'k8s.io/ingress-nginx', 'ingress-class': 'nginx' },
  },
  async run({ flags }, io) {
    const config = resolveControllerConfig(flags, io.env);
    const assess = (view: ClusterView) =>
      assessMigration(
        routeAll(view, routingOptionsOf(config, listenersOf(config), Date.now)),
        config.annotationPrefix,
      );
    const report =
      flags.manifests === ''
        ? await withClusterSnapshot(flags.kubeconfig, config, (snapshot) => assess(viewOfSnapshot(snapshot)))
        : assess(
            viewOfObjects(
              withIngressClass(toClusterObjects(await readManifests(flags.manifests)), config.classConfig),
            ),
          );
    io.stdout(
      flags.output === 'json'
        ? `${JSON.stringify(report, null, 2)}\n`
        : flags.output === 'yaml'
          ? stringify(report, { aliasDuplicateObjects: false })
          : formatMigrationReport(report),
    );
    return report.totals['not served'] > 0 ? ExitCode.failure : ExitCode.ok;
  },
};
