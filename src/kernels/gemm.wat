;; A matrix product for the tfjs wasm backend's tensors, and the packing of its B operand.
;;
;; gemm: C[m, n] = A[m, k] x B[k, n] + bias[n], then max(C, 0) when relu != 0; float32 throughout.
;;
;; B is packed (pack_rows and pack_transposed below):
;; panels of 8 columns, each panel k rows of 8 floats, so the inner loop reads B in order. Rows of A are taken 4 at a time (a 4 x 8 tile of C in eight
;; registers), the last m % 4 rows one at a time. Every element is computed the same way in both
;; loops: bias, then a * b added for k = 0, 1, ..., k - 1, each product and sum rounded to
;; float32 (no fused multiply-add). So a row's result never depends on the other rows of A, nor
;; on which loop took it.
;;
;; Why by hand: on this machine's CPU, V8 runs this 4 x 8 tile with one broadcast load per row
;; and no shuffles at about 40 GFLOP/s, against 28 for the XNNPACK kernels in tfjs' wasm
;; backend (bench/speed/gemm.ts prints both).
;;
;; Addresses are byte offsets into the memory imported from the tfjs wasm backend, where the
;; tensors live; n must be a multiple of 8 (gemm.ts checks).
(module
  (import "env" "memory" (memory 1))
  (func (export "gemm")
    (param $a i32) (param $bp i32) (param $bias i32) (param $c i32)
    (param $m i32) (param $k i32) (param $n i32) (param $relu i32)
    (local $j i32) (local $i i32) (local $kk i32)
    (local $rowA i32) (local $rowC i32) (local $panel i32)
    (local $pb i32) (local $pa i32) (local $pc i32) (local $m4 i32)
    (local $b0 v128) (local $b1 v128) (local $x v128) (local $lo v128)
    (local $c00 v128) (local $c01 v128) (local $c10 v128) (local $c11 v128)
    (local $c20 v128) (local $c21 v128) (local $c30 v128) (local $c31 v128)
    (local.set $rowA (i32.shl (local.get $k) (i32.const 2)))
    (local.set $rowC (i32.shl (local.get $n) (i32.const 2)))
    (local.set $panel (i32.shl (local.get $k) (i32.const 5)))
    (local.set $m4 (i32.and (local.get $m) (i32.const -4)))
    ;; relu clamps at 0, otherwise at -infinity: pmax(c, lo) is `c < lo ? lo : c`, so NaN stays NaN
    (local.set $lo (select (v128.const f32x4 0 0 0 0) (v128.const f32x4 -inf -inf -inf -inf) (local.get $relu)))
    (if (i32.eqz (local.get $k)) (then (return)))
    (local.set $j (i32.const 0))
    (loop $columns
      ;; 4-row tiles
      (local.set $i (i32.const 0))
      (block $tilesDone
        (br_if $tilesDone (i32.ge_u (local.get $i) (local.get $m4)))
        (loop $tiles
          (local.set $c00 (v128.load (local.get $bias)))
          (local.set $c01 (v128.load offset=16 (local.get $bias)))
          (local.set $c10 (local.get $c00)) (local.set $c11 (local.get $c01))
          (local.set $c20 (local.get $c00)) (local.set $c21 (local.get $c01))
          (local.set $c30 (local.get $c00)) (local.set $c31 (local.get $c01))
          (local.set $pb (local.get $bp))
          (local.set $pa (i32.add (local.get $a) (i32.mul (local.get $i) (local.get $rowA))))
          (local.set $kk (local.get $k))
          (loop $inner
            (local.set $b0 (v128.load (local.get $pb)))
            (local.set $b1 (v128.load offset=16 (local.get $pb)))
            (local.set $x (v128.load32_splat (local.get $pa)))
            (local.set $c00 (f32x4.add (local.get $c00) (f32x4.mul (local.get $x) (local.get $b0))))
            (local.set $c01 (f32x4.add (local.get $c01) (f32x4.mul (local.get $x) (local.get $b1))))
            (local.set $x (v128.load32_splat (i32.add (local.get $pa) (local.get $rowA))))
            (local.set $c10 (f32x4.add (local.get $c10) (f32x4.mul (local.get $x) (local.get $b0))))
            (local.set $c11 (f32x4.add (local.get $c11) (f32x4.mul (local.get $x) (local.get $b1))))
            (local.set $x (v128.load32_splat (i32.add (local.get $pa) (i32.shl (local.get $rowA) (i32.const 1)))))
            (local.set $c20 (f32x4.add (local.get $c20) (f32x4.mul (local.get $x) (local.get $b0))))
            (local.set $c21 (f32x4.add (local.get $c21) (f32x4.mul (local.get $x) (local.get $b1))))
            (local.set $x (v128.load32_splat (i32.add (local.get $pa) (i32.mul (local.get $rowA) (i32.const 3)))))
            (local.set $c30 (f32x4.add (local.get $c30) (f32x4.mul (local.get $x) (local.get $b0))))
            (local.set $c31 (f32x4.add (local.get $c31) (f32x4.mul (local.get $x) (local.get $b1))))
            (local.set $pb (i32.add (local.get $pb) (i32.const 32)))
            (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
            (br_if $inner (local.tee $kk (i32.sub (local.get $kk) (i32.const 1)))))
          (local.set $pc (i32.add (local.get $c) (i32.add (i32.mul (local.get $i) (local.get $rowC)) (i32.shl (local.get $j) (i32.const 2)))))
          (v128.store (local.get $pc) (f32x4.pmax (local.get $c00) (local.get $lo)))
          (v128.store offset=16 (local.get $pc) (f32x4.pmax (local.get $c01) (local.get $lo)))
          (local.set $pc (i32.add (local.get $pc) (local.get $rowC)))
          (v128.store (local.get $pc) (f32x4.pmax (local.get $c10) (local.get $lo)))
          (v128.store offset=16 (local.get $pc) (f32x4.pmax (local.get $c11) (local.get $lo)))
          (local.set $pc (i32.add (local.get $pc) (local.get $rowC)))
          (v128.store (local.get $pc) (f32x4.pmax (local.get $c20) (local.get $lo)))
          (v128.store offset=16 (local.get $pc) (f32x4.pmax (local.get $c21) (local.get $lo)))
          (local.set $pc (i32.add (local.get $pc) (local.get $rowC)))
          (v128.store (local.get $pc) (f32x4.pmax (local.get $c30) (local.get $lo)))
          (v128.store offset=16 (local.get $pc) (f32x4.pmax (local.get $c31) (local.get $lo)))
          (br_if $tiles (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 4))) (local.get $m4)))))
      ;; the last m % 4 rows, one at a time
      (block $rowsDone
        (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $m)))
        (loop $rows
          (local.set $c00 (v128.load (local.get $bias)))
          (local.set $c01 (v128.load offset=16 (local.get $bias)))
          (local.set $pb (local.get $bp))
          (local.set $pa (i32.add (local.get $a) (i32.mul (local.get $i) (local.get $rowA))))
          (local.set $kk (local.get $k))
          (loop $inner1
            (local.set $x (v128.load32_splat (local.get $pa)))
            (local.set $c00 (f32x4.add (local.get $c00) (f32x4.mul (local.get $x) (v128.load (local.get $pb)))))
            (local.set $c01 (f32x4.add (local.get $c01) (f32x4.mul (local.get $x) (v128.load offset=16 (local.get $pb)))))
            (local.set $pb (i32.add (local.get $pb) (i32.const 32)))
            (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
            (br_if $inner1 (local.tee $kk (i32.sub (local.get $kk) (i32.const 1)))))
          (local.set $pc (i32.add (local.get $c) (i32.add (i32.mul (local.get $i) (local.get $rowC)) (i32.shl (local.get $j) (i32.const 2)))))
          (v128.store (local.get $pc) (f32x4.pmax (local.get $c00) (local.get $lo)))
          (v128.store offset=16 (local.get $pc) (f32x4.pmax (local.get $c01) (local.get $lo)))
          (br_if $rows (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $m)))))
      (local.set $bias (i32.add (local.get $bias) (i32.const 32)))
      (local.set $bp (i32.add (local.get $bp) (local.get $panel)))
      (br_if $columns (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 8))) (local.get $n)))))

  ;; B for gemm from a row-major matrix src [rows, n] (n a multiple of 8), as `padded` rows
  ;; (padded >= rows; rows past `rows` are zeros): dst[((p * padded) + r) * 8 + c] = src[r, 8p + c].
  (func (export "pack_rows")
    (param $src i32) (param $rows i32) (param $padded i32) (param $n i32) (param $dst i32)
    (local $p i32) (local $r i32) (local $from i32) (local $rowBytes i32)
    (local.set $rowBytes (i32.shl (local.get $n) (i32.const 2)))
    (local.set $p (i32.const 0))
    (block $done
      (br_if $done (i32.or (i32.eqz (local.get $padded)) (i32.eqz (local.get $n))))
      (loop $panels
        (local.set $from (i32.add (local.get $src) (i32.shl (local.get $p) (i32.const 2))))
        (local.set $r (i32.const 0))
        (loop $copy
          (if (i32.lt_u (local.get $r) (local.get $rows))
            (then
              (v128.store (local.get $dst) (v128.load (local.get $from)))
              (v128.store offset=16 (local.get $dst) (v128.load offset=16 (local.get $from))))
            (else
              (v128.store (local.get $dst) (v128.const i32x4 0 0 0 0))
              (v128.store offset=16 (local.get $dst) (v128.const i32x4 0 0 0 0))))
          (local.set $from (i32.add (local.get $from) (local.get $rowBytes)))
          (local.set $dst (i32.add (local.get $dst) (i32.const 32)))
          (br_if $copy (i32.lt_u (local.tee $r (i32.add (local.get $r) (i32.const 1))) (local.get $padded))))
        (br_if $panels (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 8))) (local.get $n))))))

  ;; B for gemm as the transpose of src [count, k]: k rows of roundUp8(count) columns, the
  ;; columns past `count` zeros: dst[((p * k) + r) * 8 + c] = src[8p + c, r].
  (func (export "pack_transposed")
    (param $src i32) (param $count i32) (param $k i32) (param $dst i32)
    (local $col i32) (local $r i32) (local $from i32) (local $to i32) (local $rowBytes i32) (local $panelBytes i32) (local $padded i32)
    (local.set $rowBytes (i32.shl (local.get $k) (i32.const 2)))
    (local.set $panelBytes (i32.shl (local.get $k) (i32.const 5)))
    (local.set $padded (i32.and (i32.add (local.get $count) (i32.const 7)) (i32.const -8)))
    (local.set $col (i32.const 0))
    (block $done
      (br_if $done (i32.or (i32.eqz (local.get $padded)) (i32.eqz (local.get $k))))
      (loop $columns
        ;; column `col` goes to lane col % 8 of panel col / 8
        (local.set $to (i32.add (local.get $dst)
          (i32.add (i32.mul (i32.shr_u (local.get $col) (i32.const 3)) (local.get $panelBytes))
                   (i32.shl (i32.and (local.get $col) (i32.const 7)) (i32.const 2)))))
        (local.set $from (i32.add (local.get $src) (i32.mul (local.get $col) (local.get $rowBytes))))
        (local.set $r (i32.const 0))
        (loop $copy
          (f32.store (local.get $to)
            (if (result f32) (i32.lt_u (local.get $col) (local.get $count))
              (then (f32.load (local.get $from)))
              (else (f32.const 0))))
          (local.set $from (i32.add (local.get $from) (i32.const 4)))
          (local.set $to (i32.add (local.get $to) (i32.const 32)))
          (br_if $copy (i32.lt_u (local.tee $r (i32.add (local.get $r) (i32.const 1))) (local.get $k))))
        (br_if $columns (i32.lt_u (local.tee $col (i32.add (local.get $col) (i32.const 1))) (local.get $padded))))))
)
