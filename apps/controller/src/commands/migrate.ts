/**
 * `ingresskit migrate (--manifests DIR | --kubeconfig FILE)`: for every Ingress ingress-nginx
 * serves, whether IngressKit serves it identically, with differences, or not at all, and why.
 */
import { stringify } from 'yaml';
import type { ClassResolutionConfig } from '@ingresskit/class-resolution';
import { splitObjectKey } from '@ingresskit/kube-objects';
import { sourceKey } from '@ingresskit/route-model';
import type { IngressClass } from '@ingresskit/store';
import { viewOfObjects, viewOfSnapshot, type ClusterObjects, type ClusterView } from '../cluster-view.js';
import { resolveControllerConfig } from '../config.js';
import { listenersOf } from '../data-plane-render-options.js';
import { tenancyFlagNames, classFlagNames, type Flags } from '../flags.js';
import { convertToGatewayApi } from '../gateway-api-conversion.js';
import { routeAll, type IngressRouting } from '../ingress-routing.js';
import { routingOptionsOf } from '../ingress-routing-options.js';
import { readManifests, toClusterObjects } from '../manifests.js';
import { assessMigration, formatMigrationReport } from '../migration.js';
import { ExitCode, type Command, type CommandIo } from './command.js';
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
--output=json or yaml prints the report as data. Exits 1 when an Ingress would not be served.

--to=gateway-api prints instead the Gateway API objects that serve the same: a Gateway
(--gateway-name, --gateway-namespace, --gateway-class-name) with an HTTP listener and an HTTPS
listener per certificate host, the ReferenceGrants for its Secrets, and the HTTPRoutes of each
Ingress, with what HTTPRoute cannot say as comments above them. An Ingress protected by something
HTTPRoute cannot carry (source ranges, authentication, limits) is not converted, since its
backend would be served open; then it exits 1.`,
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
      'to',
      'gateway-name',
      'gateway-namespace',
      'gateway-class-name',
    ],
    // ingress-nginx's own class settings, so the report covers what it served.
    defaults: { 'controller-class': 'k8s.io/ingress-nginx', 'ingress-class': 'nginx' },
  },
  async run({ flags }, io) {
    const config = resolveControllerConfig(flags, io.env);
    const print = (view: ClusterView) => {
      const routing = routeAll(view, routingOptionsOf(config, listenersOf(config), Date.now));
      return flags.to === 'gateway-api'
        ? printGatewayApi(routing, view, flags, io)
        : printReport(routing, config.annotationPrefix, flags.output, io);
    };
    return flags.manifests === ''
      ? await withClusterSnapshot(flags.kubeconfig, config, (snapshot) => print(viewOfSnapshot(snapshot)))
      : print(
          viewOfObjects(
            withIngressClass(toClusterObjects(await readManifests(flags.manifests)), config.classConfig),
          ),
        );
  },
};

function printReport(
  routing: IngressRouting,
  annotationPrefix: string,
  output: string,
  io: CommandIo,
): number {
  const report = assessMigration(routing, annotationPrefix);
  io.stdout(
    output === 'json'
      ? `${JSON.stringify(report, null, 2)}\n`
      : output === 'yaml'
        ? stringify(report, { aliasDuplicateObjects: false })
        : formatMigrationReport(report),
  );
  return report.totals['not served'] > 0 ? ExitCode.failure : ExitCode.ok;
}

/**
 * The Gateway API objects as YAML documents, each Ingress's findings as comments above its
 * HTTPRoutes (or, with --output=json, everything as one document).
 */
function printGatewayApi(routing: IngressRouting, view: ClusterView, flags: Flags, io: CommandIo): number {
  const conversion = convertToGatewayApi(routing, view, {
    name: flags['gateway-name'],
    namespace: flags['gateway-namespace'],
    className: flags['gateway-class-name'],
  });
  const exitCode = conversion.ingresses.some((ingress) => !ingress.converted)
    ? ExitCode.failure
    : ExitCode.ok;
  if (flags.output === 'json') {
    io.stdout(`${JSON.stringify(conversion, null, 2)}\n`);
    return exitCode;
  }
  const yaml = (object: unknown) => stringify(object, { aliasDuplicateObjects: false });
  const byName = new Map(
    conversion.objects.map((object) => {
      const metadata = object.metadata as { name: string; namespace: string };
      return [sourceKey({ kind: object.kind as string, ...metadata }), object];
    }),
  );
  const documents = conversion.objects.filter((object) => object.kind !== 'HTTPRoute').map(yaml);
  for (const ingress of conversion.ingresses) {
    const { namespace } = splitObjectKey(ingress.ingress);
    const comments = [
      `# Ingress ${ingress.ingress}: ${ingress.converted ? 'converted' : 'not converted'}`,
      ...ingress.findings.map((finding) => `#   ${finding.kind}: ${finding.field}: ${finding.message}`),
    ].join('\n');
    const routes = ingress.httpRoutes.map((name) => yaml(byName.get(`HTTPRoute/${namespace}/${name}`)));
    documents.push(routes.length === 0 ? `${comments}\n` : `${comments}\n${routes.join('---\n')}`);
  }
  io.stdout(documents.join('---\n'));
  return exitCode;
}
