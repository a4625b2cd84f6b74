/**
 * How a controller runs, for `ingresskit run` and `ingresskit demo` alike: composed by the
 * controller (controller-parts.ts), started, kept until the signal, stopped gracefully. Where the
 * cluster is comes from the caller: a kubeconfig for `run`, the embedded API server for the demo.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ControllerConfig } from './config.js';
import { Controller } from './controller.js';
import { optimizeHeapForSize } from './heap-after-ready.js';
import type { Logger } from './logger.js';
import type { ControllerMetrics } from './metrics.js';

/** What runs once the controller serves its first configuration. */
export interface WhileReady {
  /** How long nginx may take to serve; the run fails after that. */
  timeoutMs: number;
  /** The run ends (and the controller stops) when this resolves; it should end at the signal too. */
  run: (controller: Controller) => Promise<void>;
}

/** Options of {@link runController}. */
export interface ControllerRunOptions {
  kubeConfig: KubeConfig;
  logger: Logger;
  /** A fresh registry by default. */
  metrics?: ControllerMetrics;
  /** Ends the run: the controller stops gracefully. */
  signal: AbortSignal;
  /** Without it the run lasts until the signal. */
  whileReady?: WhileReady;
}

/**
 * Runs a controller until `signal` (or until `whileReady` ends) and stops it. Rejects when it fails
 * to start, or to serve within `whileReady.timeoutMs`; a signal during the start is no failure.
 */
export async function runController(config: ControllerConfig, options: ControllerRunOptions): Promise<void> {
  const { kubeConfig, logger, metrics, signal, whileReady } = options;
  const controller = new Controller(config, {
    kubeConfig,
    logger,
    ...(metrics === undefined ? {} : { metrics }),
  });
  const aborted = whenAborted(signal);
  try {
    const starting = controller.start();
    // A signal during the start ends it (stop() below makes it reject); only a failure before counts.
    starting.catch(() => undefined);
    await Promise.race([starting, aborted]);
    if (config.optimizeMemoryAfterReady)
      void controller.whenReady().then(
        () => optimizeHeapForSize(signal),
        () => undefined,
      );
    if (whileReady === undefined) return await aborted;
    const ready = withTimeout(
      controller.whenReady(),
      whileReady.timeoutMs,
      () =>
        `nginx did not serve within ${whileReady.timeoutMs / 1000} s: ${controller.notReadyReason() ?? ''}`,
    );
    await Promise.race([ready, aborted]);
    if (!signal.aborted) await whileReady.run(controller);
  } finally {
    await controller.stop();
  }
}

/** Resolves when `signal` aborts (at once when it has). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message())), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
