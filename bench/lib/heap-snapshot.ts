/**
 * Reading V8 heap snapshots (`.heapsnapshot`, as `--heapsnapshot-signal` or the inspector writes
 * them) to find what retains memory that grows: object counts and sizes by constructor in two
 * snapshots of one process, the objects that are new in the later one (V8 keeps an object's id
 * across snapshots of the same process), and for those new objects the long-lived object that
 * holds them: the first object that already existed in the earlier snapshot on the shortest path
 * from the GC roots, with the edge names of that path.
 */
import { readFileSync } from 'node:fs';

interface RawSnapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** One parsed snapshot, in the flat arrays V8 writes. */
export interface HeapSnapshot {
  nodeCount: number;
  /** Per node: its class (constructor name for objects, the V8 type in parentheses otherwise). */
  className: string[];
  id: Float64Array;
  selfSize: Float64Array;
  firstEdge: Uint32Array;
  edgeTo: Uint32Array;
  edgeType: string[];
  edgeTypeOf: Uint8Array;
  edgeName: string[];
}

/** Parses a `.heapsnapshot` file (it must fit a JavaScript string: under about 512 MiB). */
export function readHeapSnapshot(path: string): HeapSnapshot {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as RawSnapshot;
  const meta = raw.snapshot.meta;
  const nodeFields = meta.node_fields.length;
  const edgeFields = meta.edge_fields.length;
  const typeField = meta.node_fields.indexOf('type');
  const nameField = meta.node_fields.indexOf('name');
  const idField = meta.node_fields.indexOf('id');
  const sizeField = meta.node_fields.indexOf('self_size');
  const edgeCountField = meta.node_fields.indexOf('edge_count');
  const edgeTypeField = meta.edge_fields.indexOf('type');
  const edgeNameField = meta.edge_fields.indexOf('name_or_index');
  const edgeToField = meta.edge_fields.indexOf('to_node');
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const nodeCount = raw.nodes.length / nodeFields;
  const edgeCount = raw.edges.length / edgeFields;
  const className: string[] = new Array<string>(nodeCount);
  const id = new Float64Array(nodeCount);
  const selfSize = new Float64Array(nodeCount);
  const firstEdge = new Uint32Array(nodeCount + 1);
  let edgeIndex = 0;
  for (let n = 0; n < nodeCount; n++) {
    const base = n * nodeFields;
    const type = nodeTypes[raw.nodes[base + typeField]!]!;
    const name = raw.strings[raw.nodes[base + nameField]!]!;
    className[n] =
      type === 'object' || type === 'native'
        ? name.split(' ')[0] || name
        : type === 'closure'
          ? '(closure)'
          : `(${type})`;
    id[n] = raw.nodes[base + idField]!;
    selfSize[n] = raw.nodes[base + sizeField]!;
    firstEdge[n] = edgeIndex;
    edgeIndex += raw.nodes[base + edgeCountField]!;
  }
  firstEdge[nodeCount] = edgeIndex;
  const edgeTo = new Uint32Array(edgeCount);
  const edgeTypeOf = new Uint8Array(edgeCount);
  const edgeName: string[] = new Array<string>(edgeCount);
  for (let e = 0; e < edgeCount; e++) {
    const base = e * edgeFields;
    const type = raw.edges[base + edgeTypeField]!;
    const nameOrIndex = raw.edges[base + edgeNameField]!;
    const typeName = edgeTypes[type]!;
    edgeTypeOf[e] = type;
    edgeTo[e] = raw.edges[base + edgeToField]! / nodeFields;
    edgeName[e] =
      typeName === 'element' || typeName === 'hidden' ? `[${nameOrIndex}]` : raw.strings[nameOrIndex]!;
  }
  return { nodeCount, className, id, selfSize, firstEdge, edgeTo, edgeType: edgeTypes, edgeTypeOf, edgeName };
}

/** Count and shallow size of the objects of one class. */
export interface ClassTotals {
  className: string;
  count: number;
  bytes: number;
}

/** Totals by class, largest first. */
export function totalsByClass(snapshot: HeapSnapshot, filter?: (node: number) => boolean): ClassTotals[] {
  const totals = new Map<string, ClassTotals>();
  for (let n = 0; n < snapshot.nodeCount; n++) {
    if (filter && !filter(n)) continue;
    const name = snapshot.className[n]!;
    const entry = totals.get(name) ?? { className: name, count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += snapshot.selfSize[n]!;
    totals.set(name, entry);
  }
  return [...totals.values()].sort((a, b) => b.bytes - a.bytes);
}

/** The difference of two snapshots' class totals, by growth in bytes. */
export function diffByClass(
  early: HeapSnapshot,
  late: HeapSnapshot,
): { className: string; countDelta: number; bytesDelta: number; count: number; bytes: number }[] {
  const before = new Map(totalsByClass(early).map((entry) => [entry.className, entry]));
  return totalsByClass(late)
    .map((entry) => ({
      className: entry.className,
      count: entry.count,
      bytes: entry.bytes,
      countDelta: entry.count - (before.get(entry.className)?.count ?? 0),
      bytesDelta: entry.bytes - (before.get(entry.className)?.bytes ?? 0),
    }))
    .sort((a, b) => b.bytesDelta - a.bytesDelta);
}

/** The ids of every object in a snapshot. */
export function idSet(snapshot: HeapSnapshot): Set<number> {
  const ids = new Set<number>();
  for (let n = 0; n < snapshot.nodeCount; n++) ids.add(snapshot.id[n]!);
  return ids;
}

// Weak edges do not retain; shortcut edges duplicate other paths.
function isRetaining(snapshot: HeapSnapshot, edge: number): boolean {
  const type = snapshot.edgeType[snapshot.edgeTypeOf[edge]!];
  return type !== 'weak' && type !== 'shortcut';
}

/**
 * Shortest-path parents from the root (node 0) over retaining edges: parent node and edge (-1 for
 * none), and the nodes in breadth-first order (parents before children).
 */
export function shortestPathTree(snapshot: HeapSnapshot): {
  parent: Int32Array;
  via: Int32Array;
  order: Uint32Array;
} {
  const parent = new Int32Array(snapshot.nodeCount).fill(-1);
  const via = new Int32Array(snapshot.nodeCount).fill(-1);
  const queue = new Uint32Array(snapshot.nodeCount);
  let head = 0;
  let tail = 0;
  queue[tail++] = 0;
  parent[0] = 0;
  while (head < tail) {
    const node = queue[head++]!;
    for (let e = snapshot.firstEdge[node]!; e < snapshot.firstEdge[node + 1]!; e++) {
      if (!isRetaining(snapshot, e)) continue;
      const to = snapshot.edgeTo[e]!;
      if (parent[to] !== -1) continue;
      parent[to] = node;
      via[to] = e;
      queue[tail++] = to;
    }
  }
  return { parent, via, order: queue.subarray(0, tail) };
}

/** Where the new objects of a later snapshot hang: an object that already existed, and the path to it. */
export interface GrowthAnchor {
  /** Class of the long-lived holder and the edge to the first new object, e.g. `Map → [table]`. */
  holder: string;
  /** The shortest path from the GC roots to the holder (classes and edge names). */
  path: string;
  newObjects: number;
  newBytes: number;
}

/**
 * Groups the objects of `late` whose ids are not in `earlyIds` by the first old object on their
 * shortest path from the roots; largest first.
 */
export function findGrowthAnchors(late: HeapSnapshot, earlyIds: Set<number>, limit = 15): GrowthAnchor[] {
  const { parent, via, order } = shortestPathTree(late);
  const isNew = (node: number) => !earlyIds.has(late.id[node]!);
  // Per new node: the old object it hangs from and the edge from that object into new objects.
  const anchorOf = new Int32Array(late.nodeCount).fill(-1);
  const edgeOf = new Int32Array(late.nodeCount).fill(-1);
  const anchors = new Map<string, GrowthAnchor>();
  const describePath = (node: number) => {
    const parts: string[] = [];
    let current = node;
    for (let depth = 0; current > 0 && depth < 14; depth++) {
      const edge = via[current]!;
      parts.push(`${edge >= 0 ? `.${late.edgeName[edge]}` : ''} ${late.className[current]}`);
      current = parent[current]!;
    }
    return parts.reverse().join(' →').trim();
  };
  for (const n of order) {
    if (n === 0 || !isNew(n)) continue;
    const up = parent[n]!;
    if (up <= 0 || !isNew(up)) {
      anchorOf[n] = up;
      edgeOf[n] = via[n]!;
    } else {
      anchorOf[n] = anchorOf[up]!;
      edgeOf[n] = edgeOf[up]!;
    }
    const anchor = anchorOf[n];
    const edge = edgeOf[n];
    // Elements of one old array or table count together.
    const edgeName = edge < 0 ? '?' : late.edgeName[edge]!.replace(/^\[\d+\]$/, '[…]');
    const key = `${anchor}:${edgeName}`;
    let entry = anchors.get(key);
    if (entry === undefined) {
      entry = {
        holder: `${late.className[anchor]} .${edgeName}`,
        path: describePath(anchor),
        newObjects: 0,
        newBytes: 0,
      };
      anchors.set(key, entry);
    }
    entry.newObjects += 1;
    entry.newBytes += late.selfSize[n]!;
  }
  return [...anchors.values()].sort((a, b) => b.newBytes - a.newBytes).slice(0, limit);
}

/** The self sizes of every object that is unreachable from the roots once `node` is taken away. */
export function retainedSize(snapshot: HeapSnapshot, node: number): number {
  const seen = new Uint8Array(snapshot.nodeCount);
  const stack = [0];
  seen[0] = 1;
  seen[node] = 1;
  while (stack.length > 0) {
    const current = stack.pop()!;
    for (let e = snapshot.firstEdge[current]!; e < snapshot.firstEdge[current + 1]!; e++) {
      if (!isRetaining(snapshot, e)) continue;
      const to = snapshot.edgeTo[e]!;
      if (seen[to] === 0) {
        seen[to] = 1;
        stack.push(to);
      }
    }
  }
  let bytes = snapshot.selfSize[node]!;
  const reachable = new Uint8Array(snapshot.nodeCount);
  // Nodes reached only through `node` were never marked above; measure from `node` among them.
  const inner = [node];
  reachable[node] = 1;
  while (inner.length > 0) {
    const current = inner.pop()!;
    for (let e = snapshot.firstEdge[current]!; e < snapshot.firstEdge[current + 1]!; e++) {
      if (!isRetaining(snapshot, e)) continue;
      const to = snapshot.edgeTo[e]!;
      if (seen[to] === 0 && reachable[to] === 0) {
        reachable[to] = 1;
        bytes += snapshot.selfSize[to]!;
        inner.push(to);
      }
    }
  }
  return bytes;
}

/** The retained size behind each named field of the objects of `className`, largest first. */
export function retainedByField(
  snapshot: HeapSnapshot,
  className: string,
): { field: string; targetClass: string; bytes: number }[] {
  const fields: { field: string; targetClass: string; bytes: number }[] = [];
  for (let n = 0; n < snapshot.nodeCount; n++) {
    if (snapshot.className[n] !== className) continue;
    for (let e = snapshot.firstEdge[n]!; e < snapshot.firstEdge[n + 1]!; e++) {
      const type = snapshot.edgeType[snapshot.edgeTypeOf[e]!];
      if (type !== 'property' && type !== 'internal') continue;
      const to = snapshot.edgeTo[e]!;
      if (snapshot.className[to] === '(hidden)' || snapshot.edgeName[e] === 'map') continue;
      fields.push({
        field: snapshot.edgeName[e]!,
        targetClass: snapshot.className[to]!,
        bytes: retainedSize(snapshot, to),
      });
    }
  }
  return fields.sort((a, b) => b.bytes - a.bytes);
}

/**
 * The immediate dominator of every node reachable from the root (-1 for the others): the node
 * every retaining path to it passes through last. Cooper, Harvey and Kennedy's iterative
 * algorithm over a depth-first post-order; a few passes at a million nodes.
 */
export function dominators(snapshot: HeapSnapshot): { idom: Int32Array; postOrder: Uint32Array } {
  const count = snapshot.nodeCount;
  const rank = new Int32Array(count).fill(-1);
  const postOrder: number[] = [];
  const nextEdge = new Uint32Array(count);
  const stack = [0];
  const seen = new Uint8Array(count);
  seen[0] = 1;
  nextEdge[0] = snapshot.firstEdge[0]!;
  while (stack.length > 0) {
    const node = stack[stack.length - 1]!;
    if (nextEdge[node]! < snapshot.firstEdge[node + 1]!) {
      const edge = nextEdge[node]!++;
      const to = snapshot.edgeTo[edge]!;
      if (!isRetaining(snapshot, edge) || seen[to] === 1) continue;
      seen[to] = 1;
      nextEdge[to] = snapshot.firstEdge[to]!;
      stack.push(to);
    } else {
      stack.pop();
      rank[node] = postOrder.length;
      postOrder.push(node);
    }
  }
  // Retaining predecessors of each reached node, as a CSR array.
  const start = new Uint32Array(count + 1);
  for (const node of postOrder) {
    for (let e = snapshot.firstEdge[node]!; e < snapshot.firstEdge[node + 1]!; e++)
      if (isRetaining(snapshot, e)) start[snapshot.edgeTo[e]! + 1]! += 1;
  }
  for (let n = 0; n < count; n++) start[n + 1]! += start[n]!;
  const predecessors = new Uint32Array(start[count]!);
  const fill = start.slice(0, count);
  for (const node of postOrder) {
    for (let e = snapshot.firstEdge[node]!; e < snapshot.firstEdge[node + 1]!; e++)
      if (isRetaining(snapshot, e)) predecessors[fill[snapshot.edgeTo[e]!]!++] = node;
  }
  const idom = new Int32Array(count).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (rank[a]! < rank[b]!) a = idom[a]!;
      while (rank[b]! < rank[a]!) b = idom[b]!;
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let i = postOrder.length - 2; i >= 0; i--) {
      const node = postOrder[i]!;
      let candidate = -1;
      for (let p = start[node]!; p < start[node + 1]!; p++) {
        const from = predecessors[p]!;
        if (idom[from] === -1) continue;
        candidate = candidate === -1 ? from : intersect(from, candidate);
      }
      if (candidate !== idom[node]) {
        idom[node] = candidate;
        changed = true;
      }
    }
  }
  return { idom, postOrder: Uint32Array.from(postOrder) };
}

/** Per node, the nearest dominator whose class is one of `ownerClasses` (-1: none, shared). */
function ownersOf(
  snapshot: HeapSnapshot,
  ownerClasses: ReadonlySet<string>,
): {
  owner: Int32Array;
  postOrder: Uint32Array;
} {
  const { idom, postOrder } = dominators(snapshot);
  const owner = new Int32Array(snapshot.nodeCount).fill(-1);
  // Reverse post-order visits every dominator before the nodes it dominates.
  for (let i = postOrder.length - 1; i >= 0; i--) {
    const node = postOrder[i]!;
    if (ownerClasses.has(snapshot.className[node]!)) owner[node] = node;
    else if (node !== 0) owner[node] = owner[idom[node]!]!;
  }
  return { owner, postOrder };
}

/**
 * What each object of the given classes holds alone (everything it dominates), split by the
 * class of the objects held; the objects they share with others count for the nearest common
 * owner and are not shown. Largest first.
 */
export function heldByOwners(
  snapshot: HeapSnapshot,
  ownerClasses: ReadonlySet<string>,
): { owner: string; className: string; count: number; bytes: number }[] {
  const { owner, postOrder } = ownersOf(snapshot, ownerClasses);
  const totals = new Map<string, { owner: string; className: string; count: number; bytes: number }>();
  for (const node of postOrder) {
    if (owner[node] === -1) continue;
    const key = `${snapshot.className[owner[node]!]}\n${snapshot.className[node]}`;
    const entry = totals.get(key) ?? {
      owner: snapshot.className[owner[node]!]!,
      className: snapshot.className[node]!,
      count: 0,
      bytes: 0,
    };
    entry.count += 1;
    entry.bytes += snapshot.selfSize[node]!;
    totals.set(key, entry);
  }
  return [...totals.values()].sort((a, b) => b.bytes - a.bytes);
}

/**
 * Like {@link heldByOwners}, but split by what the objects are rather than by class: a plain
 * object by its property names (`{id,origin,match}`: a route), anything else (arrays, strings,
 * backing stores) by the edge and the object that refer to it first. Objects no owner holds alone
 * count as `shared`. This is what told a route's origin from its match in a table of 10,000 hosts.
 */
export function heldByShape(
  snapshot: HeapSnapshot,
  ownerClasses: ReadonlySet<string>,
): { owner: string; shape: string; count: number; bytes: number }[] {
  const { owner } = ownersOf(snapshot, ownerClasses);
  // The first retaining referrer of each node, preferring a real object to V8's own bookkeeping.
  const referrer = new Int32Array(snapshot.nodeCount).fill(-1);
  const referrerEdge = new Int32Array(snapshot.nodeCount).fill(-1);
  const isBookkeeping = (node: number) =>
    /^\((object shape|hidden|synthetic)\)$/.test(snapshot.className[node]!);
  for (let node = 0; node < snapshot.nodeCount; node++) {
    for (let e = snapshot.firstEdge[node]!; e < snapshot.firstEdge[node + 1]!; e++) {
      if (!isRetaining(snapshot, e)) continue;
      const to = snapshot.edgeTo[e]!;
      const current = referrer[to]!;
      if (current === -1 || (isBookkeeping(current) && !isBookkeeping(node))) {
        referrer[to] = node;
        referrerEdge[to] = e;
      }
    }
  }
  const properties = (node: number) => {
    const names: string[] = [];
    for (let e = snapshot.firstEdge[node]!; e < snapshot.firstEdge[node + 1]!; e++) {
      const name = snapshot.edgeName[e]!;
      if (snapshot.edgeType[snapshot.edgeTypeOf[e]!] === 'property' && name !== '__proto__' && name !== 'map')
        names.push(name);
    }
    return `{${names.join(',').slice(0, 80)}}`;
  };
  const describe = (node: number) =>
    snapshot.className[node] === 'Object' ? properties(node) : snapshot.className[node]!;
  const referredAs = (node: number) => {
    const from = referrer[node]!;
    if (from < 0) return '';
    const edge = snapshot.edgeName[referrerEdge[node]!]!.replace(/^\[\d+\]$/, '[]');
    return ` <- .${edge} ${describe(from)}`;
  };
  const totals = new Map<string, { owner: string; shape: string; count: number; bytes: number }>();
  for (let node = 0; node < snapshot.nodeCount; node++) {
    const className = snapshot.className[node]!;
    let shape = describe(node);
    if (className.startsWith('(') || className === 'Array') {
      // A backing store or a string says little by itself: name what holds it, two levels up.
      shape += referredAs(node);
      const from = referrer[node]!;
      if (from >= 0 && /^(Array|Map|Set)$/.test(snapshot.className[from]!)) shape += referredAs(from);
    }
    const ownerName = owner[node]! >= 0 ? snapshot.className[owner[node]!]! : 'shared';
    const key = `${ownerName}\n${shape}`;
    const entry = totals.get(key) ?? { owner: ownerName, shape, count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += snapshot.selfSize[node]!;
    totals.set(key, entry);
  }
  return [...totals.values()].sort((a, b) => b.bytes - a.bytes);
}
