/**
 * Pool workers helping each other with one request (see encoder/split.ts): every pair of
 * workers shares a MessagePort, and one shared Int32Array holds how busy each worker is (its
 * evaluations plus windows it encodes for others). A worker whose pass has several windows sends
 * some to an idle peer and encodes the rest meanwhile; one whose pass is a lone window runs a
 * row job with an idle peer (rows-channel.ts), which the peer computes synchronously. The main
 * thread is not involved: it keeps routing whole requests as before.
 * @module
 */
import type { MessagePort } from 'node:worker_threads';
import type { Encoder, RowJob, WindowHelper, WindowResults } from '../encoder/index.js';
import type { TextRep } from '../heads/late.js';
import { wireInputs, type HeadsHelper } from '../heads/remote.js';
import type { QuestionInput } from '../heads/request-logits.js';
import type { TrainedHeadsRunner } from '../heads/runner.js';
import type { TrainedHeadsSpec } from '../heads/trained.js';
import { helpRowJob, ownRowJob, rowBuffer } from './rows-channel.js';

/**
 * How long a request waits for a helper's share of its questions (a share computes in about
 * 5 ms) before computing it itself.
 */
const HEADS_WAIT_MS = 250;

/** What a worker gets to reach its peers. */
export interface PeerInit {
  /** This worker's slot in `busy`. */
  index: number;
  /** One Int32 per worker: evaluations and helper jobs under way. */
  busy: SharedArrayBuffer;
  /** A port to each other worker. */
  ports: { index: number; port: MessagePort }[];
  /** Offer row jobs too (encoder/rows.ts; default true; false for A/B measurements). */
  rows?: boolean;
}

type PeerMessage =
  | { type: 'windows'; id: number; windows: number[][]; keepStates: boolean }
  | { type: 'cancel'; id: number }
  | { type: 'rows'; id: number; job: RowJob; buffer: SharedArrayBuffer }
  | { type: 'done'; id: number; ok: true; result: WindowResults }
  | { type: 'done'; id: number; ok: false; message: string }
  | { type: 'heads'; id: number; spec: TrainedHeadsSpec; state: TextRep; questions: QuestionInput[] }
  | { type: 'heads-done'; id: number; logits: number[][] | null };

/** Counts this worker busy while `work` runs (peers read it to decide whether to ask for help). */
export function busyWhile<T>(peers: PeerInit | undefined, work: () => Promise<T>): Promise<T> {
  if (!peers) return work();
  const busy = new Int32Array(peers.busy);
  Atomics.add(busy, peers.index, 1);
  return work().finally(() => Atomics.sub(busy, peers.index, 1));
}

/**
 * Connects this worker's encoder and heads to its peers: it answers their window, row and
 * question requests, and gets helpers that send such work to an idle peer. Returns a function
 * that rejects requests still waiting on peers (at close), so that they are computed locally.
 */
export function connectPeers(peers: PeerInit, encoder: Encoder, heads?: TrainedHeadsRunner): () => void {
  const busy = new Int32Array(peers.busy);
  let nextId = 1;
  const waiting = new Map<number, { port: MessagePort; resolve(r: WindowResults): void; reject(e: Error): void }>();
  const headsWaiting = new Map<number, { port: MessagePort; resolve(logits: number[][] | null): void }>();
  // Window jobs this worker runs for peers, by (port, id), so that their owner can cancel them.
  const helping = new Map<MessagePort, Map<number, AbortController>>();
  for (const { port } of peers.ports) {
    // A peer that ends leaves its windows and questions to us (computed here instead).
    port.on('close', () => {
      for (const [id, w] of waiting) {
        if (w.port !== port) continue;
        waiting.delete(id);
        w.reject(new Error('peer worker ended'));
      }
      for (const [id, w] of headsWaiting) {
        if (w.port !== port) continue;
        headsWaiting.delete(id);
        w.resolve(null);
      }
    });
    port.on('message', (m: PeerMessage) => {
      if (m.type === 'windows') {
        const jobs = helping.get(port) ?? helping.set(port, new Map()).get(port)!;
        const controller = new AbortController();
        jobs.set(m.id, controller);
        void busyWhile(peers, () => encoder.encodeWindows(m.windows, m.keepStates, controller.signal))
          .then(
            (result) => port.postMessage({ type: 'done', id: m.id, ok: true, result } satisfies PeerMessage),
            (error: unknown) => port.postMessage({ type: 'done', id: m.id, ok: false, message: String(error) } satisfies PeerMessage),
          )
          .finally(() => jobs.delete(m.id));
      } else if (m.type === 'cancel') {
        helping.get(port)?.get(m.id)?.abort();
      } else if (m.type === 'rows') {
        // Synchronous: the job runs in lockstep with its owner (rows-channel.ts).
        Atomics.add(busy, peers.index, 1);
        try {
          helpRowJob(m.buffer, m.id, () => encoder.rowSide(m.job, 1));
        } finally {
          Atomics.sub(busy, peers.index, 1);
        }
      } else if (m.type === 'heads') {
        // The asking worker waits for these logits; this worker counts as busy until they are
        // sent (on onnxruntime-node the heads run asynchronously, native/backend.ts).
        Atomics.add(busy, peers.index, 1);
        void (async () => (heads ? await heads.logitsFor(m.spec, m.state, m.questions) : null))()
          .catch(() => null)
          .then((logits) => {
            Atomics.sub(busy, peers.index, 1);
            port.postMessage({ type: 'heads-done', id: m.id, logits } satisfies PeerMessage);
          });
      } else if (m.type === 'heads-done') {
        headsWaiting.get(m.id)?.resolve(m.logits);
        headsWaiting.delete(m.id);
      } else {
        const w = waiting.get(m.id);
        waiting.delete(m.id);
        if (m.ok) w?.resolve(m.result);
        else w?.reject(new Error(`peer encoder failed: ${m.message}`));
      }
    });
    // Ports keep no worker alive on their own: a worker ends when its pool closes it.
    port.unref();
  }
  const idlePeer = () => peers.ports.find((p) => Atomics.load(busy, p.index) === 0);
  const helper: WindowHelper = {
    available: () => idlePeer() !== undefined,
    encode(windows, keepStates, signal) {
      const peer = idlePeer() ?? peers.ports[0]!;
      const id = nextId++;
      // The owner's requests were all aborted: the peer stops at its next window boundary.
      const cancel = () => peer.port.postMessage({ type: 'cancel', id } satisfies PeerMessage);
      return new Promise<WindowResults>((resolve, reject) => {
        waiting.set(id, { port: peer.port, resolve, reject });
        peer.port.postMessage({ type: 'windows', id, windows: windows.map((w) => [...w]), keepStates } satisfies PeerMessage);
        signal?.addEventListener('abort', cancel, { once: true });
      }).finally(() => signal?.removeEventListener('abort', cancel));
    },
  };
  // One shared buffer per peer this worker has given row jobs to, made on first use.
  const rowBuffers = new Map<number, SharedArrayBuffer>();
  let nextRowJob = 1;
  if (peers.rows !== false) helper.rows = (job, mine, meanwhile) => {
    const peer = idlePeer();
    if (!peer) return null;
    let buffer = rowBuffers.get(peer.index);
    if (!buffer) rowBuffers.set(peer.index, (buffer = rowBuffer()));
    const id = nextRowJob++;
    const offer = () => peer.port.postMessage({ type: 'rows', id, job, buffer } satisfies PeerMessage);
    return ownRowJob(buffer, id, job, mine, offer, meanwhile);
  };
  encoder.helper = peers.ports.length > 0 ? helper : null;
  const headsHelper: HeadsHelper = {
    available: () => idlePeer() !== undefined,
    logits(spec, state, questions) {
      const peer = idlePeer();
      if (!peer) return Promise.resolve(null);
      const id = nextId++;
      return new Promise<number[][] | null>((resolve) => {
        const timer = setTimeout(() => {
          headsWaiting.delete(id);
          resolve(null);
        }, HEADS_WAIT_MS);
        headsWaiting.set(id, {
          port: peer.port,
          resolve: (logits) => {
            clearTimeout(timer);
            resolve(logits);
          },
        });
        // The copies are ours alone: moved, not copied again.
        const wire = wireInputs(state, questions);
        const texts = [wire.state, ...wire.questions.flatMap((q) => [q.instructions, ...q.lines])];
        const buffers = texts.flatMap((t) => [t.tokens.buffer, t.pooled.buffer]) as ArrayBuffer[];
        peer.port.postMessage({ type: 'heads', id, spec, ...wire } satisfies PeerMessage, buffers);
      });
    },
  };
  if (heads && peers.ports.length > 0) heads.helper = headsHelper;
  return () => {
    encoder.helper = null;
    if (heads) heads.helper = null;
    for (const w of waiting.values()) w.reject(new Error('engine closed'));
    waiting.clear();
    for (const w of headsWaiting.values()) w.resolve(null);
    headsWaiting.clear();
    for (const { port } of peers.ports) port.close();
  };
}
