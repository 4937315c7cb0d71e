/**
 * vitest setupFiles: tfjs' PROD flag in every test worker, as src/encoder/backend.ts sets it for
 * the engine, so that tests that bring up a tfjs backend themselves (the cpu backend in the heads
 * and training tests) do not print tfjs' "install our node backend" banner into the run's output.
 */
import * as tf from '@tensorflow/tfjs-core';

tf.env().set('PROD', true);
