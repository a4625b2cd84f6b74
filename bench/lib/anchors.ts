/**
 * Published figures of the controllers people run today, the yardstick of the system scenarios,
 * each with where it was published (collected from the projects' own benchmark results, a
 * third-party benchmark and user reports). Environments differ from this machine; compare orders
 * of magnitude, not digits.
 */

/** One published figure. */
export interface Anchor {
  /** The figure, with its scale and conditions, in a few words. */
  figure: string;
  /** Where it was published. */
  source: string;
}

/** Anchors by topic. */
export const anchors = {
  coldStartNgf: {
    figure:
      'NGF: 1–49 s to first full config, 1,204 objects present at startup (1.6: 1 s; 2.6: 31 s; edge: 49 s)',
    source: 'nginx-gateway-fabric tests/results/reconfig',
  },
  coldStartIngressNginx: {
    figure: 'ingress-nginx, ~3,000 Ingresses: `nginx -t` ~40 s, full sync ~1.5 min',
    source: 'kubernetes/ingress-nginx#11045',
  },
  coldStartNginxInc: {
    figure: 'NGINX IC: 1,500 Ingresses ~1 h; 8,000+ 20+ min to ready',
    source: 'nginx/kubernetes-ingress #1113, #9657',
  },
  memoryEg: {
    figure: 'Envoy Gateway controller: 255.5 MiB mean / 262.5 max at 1,000 HTTPRoutes (176.5 at 500)',
    source: 'envoyproxy/gateway benchmark v1.9.0',
  },
  memoryIngressNginx: {
    figure: 'ingress-nginx: over 5 GB with 8k+ hosts during certificate renewals',
    source: 'kubernetes/ingress-nginx#6958',
  },
  routeChangeNgf: {
    figure: 'NGF 1.0/1.1: route create → serving, mean 0.47 s over 1,000; 0.68–0.69 s at #1,000',
    source: 'nginx-gateway-fabric tests/results/scale/1.{0,1}.0',
  },
  routeChangeGab: {
    figure: 'GAB at 3,000 routes: NGF ≈800 ms, EG ≈600 ms, Istio 120–300 ms, agentgateway 10–30 ms',
    source: 'howardjohn/gateway-api-bench README-v2',
  },
  routeChangeLarge: {
    figure: 'NGF 1.6 at 5,000 routes: up to 15 s; ingress-nginx at ~3,000 Ingresses: reload ~40 s',
    source: 'gateway-api-bench README; kubernetes/ingress-nginx#11045',
  },
  syncRateLimit: {
    figure: 'ingress-nginx default --sync-rate-limit 0.3/s: up to 3,333 ms before a sync may start',
    source: 'ingress-nginx pkg/flags/flags.go',
  },
  endpointReloadsIngressNginx: {
    figure: 'ingress-nginx: 0 reloads for endpoint changes (Lua); NGF OSS: ~136 reloads in 10 min of churn',
    source: 'ingress-nginx docs/how-it-works.md; nginx-gateway-fabric#5524',
  },
  endpointLagIngressNginx: {
    figure: 'ingress-nginx at ~3,000 Ingresses: endpoint updates lag 1–3 min',
    source: 'kubernetes/ingress-nginx#11045',
  },
  upstreamScaleNgf: {
    figure: 'NGF 1.0: upstream scaled to 648 pods → 116 reloads (avg 125 ms); 2.6: 87 batches',
    source: 'nginx-gateway-fabric tests/results/scale',
  },
  nginxTest: {
    figure:
      '`nginx -t` at thousands of servers: no controlled benchmark; field: ~40 s at a 200 MB nginx.conf',
    source: 'kubernetes/ingress-nginx#11045',
  },
} satisfies Record<string, Anchor>;
