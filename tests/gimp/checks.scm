; The checks run inside gimp-console by run_gimp.sh, all in one GIMP
; session because each start costs seconds. Images go to WORK/out and are
; compared with the CLI's results by ctest; status checks print
; "CHECK name PASS|FAIL" lines that ctest looks for in the log.
;
; P1, the filter the golden cases use (the CLI's --mode rgb --sigma-s 2.5
; --sigma-r 25 --iterations 2): two iterations make the selection's halo
; 2 r wide, which the selection case checks.

(define (ew-load path) (car (gimp-file-load RUN-NONINTERACTIVE path path)))
(define (ew-layer image) (car (gimp-image-get-active-drawable image)))
(define (ew-save image path)
  (gimp-file-save RUN-NONINTERACTIVE image (ew-layer image) path path)
  (gimp-image-delete image))
(define (ew-report name ok)
  (gimp-message (string-append "CHECK " name (if ok " PASS" " FAIL"))))
(define (ew-clean? image) (= 0 (car (gimp-image-is-dirty image))))

(define (ew-p1 image)
  (plug-in-edgewise-bilateral RUN-NONINTERACTIVE image (ew-layer image) 1 2.5 0 25.0 0 2 0))

; Loads input, lets prepare change it (precision, selection), runs P1,
; lets finish change it, saves.
(define (ew-golden-finish work input output prepare finish)
  (let ((image (ew-load (string-append work "/in/" input))))
    (prepare image)
    (ew-p1 image)
    (finish image)
    (ew-save image (string-append work "/out/" output))))
(define (ew-golden work input output prepare)
  (ew-golden-finish work input output prepare ew-no-change))

; Expects the call to fail and to leave the image as it was; saves it so
; ctest can compare its pixels with the input.
(define (ew-expect-error work name input prepare mode sigma-s radius sigma-r kernel iterations backend)
  (let* ((image (ew-load (string-append work "/in/" input)))
         (ignored (begin (prepare image) (gimp-image-clean-all image)))
         (failed (catch #t
                   (plug-in-edgewise-bilateral RUN-NONINTERACTIVE image (ew-layer image)
                                               mode sigma-s radius sigma-r kernel iterations backend)
                   #f)))
    (ew-report name (and failed (ew-clean? image)))
    (ew-save image (string-append work "/out/" name ".png"))))

; The refusals: each case builds its image, calls the procedure on the
; drawable it returns, and must fail without changing anything. The image
; is saved merged (groups) so ctest compares every visible pixel.
(define (ew-in-group image)
  (let ((layer (ew-layer image))
        (group (car (gimp-layer-group-new image))))
    (gimp-image-insert-layer image group 0 0)
    (gimp-image-reorder-item image layer group 0)
    (list layer group)))
(define (ew-case-group image) (cadr (ew-in-group image)))
(define (ew-case-locked image)
  (let ((layer (ew-layer image))) (gimp-item-set-lock-content layer TRUE) layer))
(define (ew-case-locked-group image)
  (let ((pair (ew-in-group image))) (gimp-item-set-lock-content (cadr pair) TRUE) (car pair)))
(define (ew-case-locked-mask image)
  (let* ((layer (ew-layer image))
         (mask (car (gimp-layer-create-mask layer ADD-MASK-WHITE))))
    (gimp-layer-add-mask layer mask)
    (gimp-item-set-lock-content layer TRUE)
    mask))
(define (ew-case-layer image) (ew-layer image))
(define (ew-save-merged image path)
  (let ((flat (car (gimp-image-flatten image))))
    (gimp-file-save RUN-NONINTERACTIVE image flat path path)
    (gimp-image-delete image)))
(define (ew-refusal work name make-drawable run-mode)
  (let* ((image (ew-load (string-append work "/in/astronaut.png")))
         (drawable (make-drawable image))
         (ignored (gimp-image-clean-all image))
         (failed (catch #t
                   (plug-in-edgewise-bilateral run-mode image drawable 1 3.0 0 20.0 0 1 0)
                   #f)))
    (ew-report name (and failed (ew-clean? image)))
    (ew-save-merged image (string-append work "/out/" name ".png"))))
; Uncaught, so that GIMP prints the plug-in's error message into the log.
(define (edgewise-refusal-message work make-drawable run-mode)
  (let ((image (ew-load (string-append work "/in/astronaut.png"))))
    (plug-in-edgewise-bilateral run-mode image (make-drawable image) 1 3.0 0 20.0 0 1 0)))

; A text layer is filtered, as GIMP's own filters do it: it becomes an
; ordinary (modified) text layer.
(define (ew-text-layer work)
  (let* ((image (ew-load (string-append work "/in/astronaut.png")))
         (text (car (gimp-text-fontname image -1 10 10 "Edgewise" 0 TRUE 40 PIXELS "Sans")))
         (was-text (car (gimp-item-is-text-layer text)))
         (ok (catch #f (plug-in-edgewise-bilateral RUN-NONINTERACTIVE image text 1 3.0 0 20.0 0 1 0) #t)))
    (ew-report "text-layer" (and ok (= was-text 1) (= 0 (car (gimp-item-is-text-layer text)))
                                 (= 1 (car (gimp-item-is-layer text)))))
    (gimp-image-delete image)))

; Never a silent no-op (issue 26): at auto on a flat 12x10 image the noise
; cannot be measured (too few blocks) and nothing changes; the plug-in says
; both in its messages, which gimp-console prints into the log
; (gimp.auto_fallback_notice, gimp.auto_unchanged_notice).
(define (ew-auto-notices)
  (let* ((image (car (gimp-image-new 12 10 RGB)))
         (layer (car (gimp-layer-new image 12 10 RGB-IMAGE "flat" 100 NORMAL-MODE))))
    (gimp-image-insert-layer image layer 0 0)
    (gimp-drawable-fill layer WHITE-FILL)
    (plug-in-edgewise-bilateral RUN-NONINTERACTIVE image layer 1 1.5 0 -1.0 0 1 0)
    (gimp-image-delete image)))

; The linear working space on a linear-precision image: GIMP converts to
; linear float, plug-in-edgewise-bilateral2 filters with working-space 1,
; and the result, back at 16-bit perceptual precision for the PNG, is
; compared with the double reference computed in linear light.
(define (ew-linear work output working-space)
  (let ((image (ew-load (string-append work "/in/astronaut16.png"))))
    (gimp-image-convert-precision image PRECISION-FLOAT-LINEAR)
    (plug-in-edgewise-bilateral2 RUN-NONINTERACTIVE image (ew-layer image) 1 2.0 4 25.0 0 1 1 working-space)
    (gimp-image-convert-precision image PRECISION-U16-GAMMA)
    (ew-save image (string-append work "/out/" output))))

; A procedure's menu path, or "none" (gimp-plugins-query lists every
; plug-in procedure with a menu entry: menu paths, ..., procedure names).
(define (ew-menu procedure)
  (let* ((found (gimp-plugins-query ""))
         (paths (list-ref found 1))
         (names (list-ref found 11)))
    (let loop ((p paths) (n names))
      (cond ((null? n) "none")
            ((equal? (car n) procedure) (car p))
            (else (loop (cdr p) (cdr n)))))))

(define (ew-no-change image) #t)
(define (ew-add-alpha image) (gimp-layer-add-alpha (ew-layer image)))
(define (ew-flatten image) (gimp-image-flatten image))
(define (ew-indexed image) (gimp-image-convert-indexed image 0 0 255 FALSE FALSE ""))

; A procedure's PDB arguments' names, as registered (generated from its
; registry row).
(define (ew-arg-names procedure)
  (let loop ((index 0) (names ""))
    (if (< index (list-ref (gimp-procedural-db-proc-info procedure) 6))
        (loop (+ index 1)
              (string-append names " " (cadr (gimp-procedural-db-proc-arg procedure index))))
        names)))

(define (edgewise-checks work)
  (gimp-message (string-append "PDB ARGS" (ew-arg-names "plug-in-edgewise-bilateral")))
  (gimp-message (string-append "PDB ADAPTIVE ARGS" (ew-arg-names "plug-in-edgewise-adaptive")))
  (gimp-message (string-append "PDB ARGS2" (ew-arg-names "plug-in-edgewise-bilateral2")))
  (gimp-message (string-append "PDB ADAPTIVE ARGS2" (ew-arg-names "plug-in-edgewise-adaptive2")))
  (gimp-message (string-append "PDB MENU bilateral " (ew-menu "plug-in-edgewise-bilateral")))
  (gimp-message (string-append "PDB MENU bilateral2 " (ew-menu "plug-in-edgewise-bilateral2")))
  (ew-golden work "astronaut.png" "rgb.png" ew-no-change)
  (ew-golden work "astronaut_rgba.png" "rgba.png" ew-no-change)
  (ew-golden work "camera.png" "gray.png" ew-no-change)
  ; Alpha added inside GIMP (opaque, so flattening afterwards gives back
  ; what the CLI computes without alpha): the Y'A / R'G'B'A float paths.
  (ew-golden-finish work "astronaut.png" "rgb-added-alpha.png" ew-add-alpha ew-flatten)
  (ew-golden-finish work "camera.png" "gray-added-alpha.png" ew-add-alpha ew-flatten)
  (ew-golden work "astronaut16.png" "u16.png" ew-no-change)
  (ew-golden work "astronaut16.png" "float.png"
             (lambda (image) (gimp-image-convert-precision image PRECISION-FLOAT-GAMMA)))
  ; Linear storage: the plug-in still filters R'G'B' (GEGL converts); the
  ; PNG exporter would write linear values, so convert back before saving.
  (ew-golden-finish work "astronaut16.png" "half-linear.png"
                    (lambda (image) (gimp-image-convert-precision image PRECISION-HALF-LINEAR))
                    (lambda (image) (gimp-image-convert-precision image PRECISION-U16-GAMMA)))
  (ew-golden work "astronaut.png" "selection.png"
             (lambda (image) (gimp-image-select-rectangle image CHANNEL-OP-REPLACE 60 40 100 90)))
  ; WITH-LAST-VALS: a lab/tukey run, failed calls in between (they must not
  ; change the stored values), then a repeat whose own arguments are ignored.
  (let ((image (ew-load (string-append work "/in/astronaut.png"))))
    (plug-in-edgewise-bilateral RUN-NONINTERACTIVE image (ew-layer image) 2 2.0 5 8.0 1 1 1)
    (ew-save image (string-append work "/out/lab.png")))
  (ew-expect-error work "bad-sigma-s" "astronaut.png" ew-no-change 1 -1.0 0 20.0 0 1 0)
  (ew-expect-error work "bad-mode" "astronaut.png" ew-no-change 7 3.0 0 20.0 0 1 0)
  (ew-expect-error work "bad-backend" "astronaut.png" ew-no-change 1 3.0 0 20.0 0 1 9)
  (ew-expect-error work "indexed" "astronaut.png" ew-indexed 1 3.0 0 20.0 0 1 0)
  (let ((image (ew-load (string-append work "/in/astronaut.png"))))
    (plug-in-edgewise-bilateral RUN-WITH-LAST-VALS image (ew-layer image) 1 3.0 0 20.0 0 1 0)
    (ew-save image (string-append work "/out/last-vals.png")))
  ; The adaptive filter's procedure: the bilateral arguments, then adapt-k,
  ; adapt-eps, adapt-min, adapt-max.
  (let ((image (ew-load (string-append work "/in/astronaut.png"))))
    (plug-in-edgewise-adaptive RUN-NONINTERACTIVE image (ew-layer image) 1 1.5 0 30.0 0 1 1 1.5 0.01 0.002 1.0)
    (ew-save image (string-append work "/out/adaptive.png")))
  ; Its last values, kept as settings text, read back by name.
  (let ((image (ew-load (string-append work "/in/astronaut.png"))))
    (plug-in-edgewise-adaptive RUN-WITH-LAST-VALS image (ew-layer image) 0 1.0 0 10.0 0 1 0 0.1 0.1 0.1 0.1)
    (ew-save image (string-append work "/out/adaptive-last-vals.png")))
  ; The non-local-means filter's procedure, generated from its registry
  ; row: mode, search-radius, patch-radius, h, sigma-n, sigma-s, sigma-r,
  ; kernel, then the backend.
  (gimp-message (string-append "PDB NLM ARGS" (ew-arg-names "plug-in-edgewise-nlm")))
  (let ((image (ew-load (string-append work "/in/astronaut.png"))))
    (plug-in-edgewise-nlm RUN-NONINTERACTIVE image (ew-layer image) 1 4 1 12.0 6.0 100.0 100000.0 0 1)
    (ew-save image (string-append work "/out/nlm.png")))
  ; The learned filter's procedure, generated from its registry row:
  ; sigma-n (-1: auto, the noise network's map) and strength, then the
  ; backend; it reads the shipped networks as the CLI does.
  (gimp-message (string-append "PDB LEARNED ARGS" (ew-arg-names "plug-in-edgewise-learned")))
  (let ((image (ew-load (string-append work "/in/astronaut_noisy.png"))))
    (plug-in-edgewise-learned RUN-NONINTERACTIVE image (ew-layer image) -1.0 1.0 1)
    (ew-save image (string-append work "/out/learned.png")))
  ; The Fourier bilateral filter's procedure, generated from its registry
  ; row: mode, sigma-s, sigma-r, kernel, terms, then the backend. rgb (mode
  ; 1) is refused, the image unchanged.
  (gimp-message (string-append "PDB FOURIER ARGS" (ew-arg-names "plug-in-edgewise-fourier")))
  (let ((image (ew-load (string-append work "/in/astronaut.png"))))
    (plug-in-edgewise-fourier RUN-NONINTERACTIVE image (ew-layer image) 0 4.0 30.0 0 0 1)
    (ew-save image (string-append work "/out/fourier.png")))
  (let* ((image (ew-load (string-append work "/in/astronaut.png")))
         (ignored (gimp-image-clean-all image))
         (failed (catch #t
                   (plug-in-edgewise-fourier RUN-NONINTERACTIVE image (ew-layer image) 1 4.0 30.0 0 0 1)
                   #f)))
    (ew-report "fourier-rgb" (and failed (ew-clean? image)))
    (gimp-image-delete image))
  ; sigma-r -1: auto, from the noise the plug-in measures on the drawable,
  ; as the CLI measures it on the file.
  (let ((image (ew-load (string-append work "/in/astronaut_noisy.png"))))
    (plug-in-edgewise-bilateral RUN-NONINTERACTIVE image (ew-layer image) 1 2.0 0 -1.0 0 1 1)
    (ew-save image (string-append work "/out/auto.png")))
  ; With a selection, still the whole drawable's noise (the dialog's preview
  ; measures the whole image too), so the inside equals the CLI's auto.
  (let ((image (ew-load (string-append work "/in/astronaut_noisy.png"))))
    (gimp-image-select-rectangle image CHANNEL-OP-REPLACE 60 40 100 90)
    (plug-in-edgewise-bilateral RUN-NONINTERACTIVE image (ew-layer image) 1 2.0 0 -1.0 0 1 1)
    (ew-save image (string-append work "/out/auto-selection.png")))
  ; A selection whose grown halo does not start on the pyramid's grid (3
  ; levels: 4 px) inside equals the CLI's whole image (core/region.h).
  (let ((image (ew-load (string-append work "/in/astronaut.png"))))
    (gimp-image-select-rectangle image CHANNEL-OP-REPLACE 61 43 100 90)
    (plug-in-edgewise-pyramid RUN-NONINTERACTIVE image (ew-layer image) 1 1.5 0 20.0 0 3 0 1 1.0 1.0 1.0 1.0)
    (ew-save image (string-append work "/out/pyramid-selection.png")))
  ; Version 2 in the perceptual space is version 1.
  (let ((image (ew-load (string-append work "/in/astronaut.png"))))
    (plug-in-edgewise-bilateral2 RUN-NONINTERACTIVE image (ew-layer image) 1 2.5 0 25.0 0 2 0 0)
    (ew-save image (string-append work "/out/rgb-v2.png")))
  (ew-linear work "linear.png" 1)
  (ew-linear work "linear-perceptual.png" 0)
  ; Refused up front: error status, message, image unchanged.
  (ew-refusal work "group" ew-case-group RUN-NONINTERACTIVE)
  (ew-refusal work "group-interactive" ew-case-group RUN-INTERACTIVE)
  (ew-refusal work "locked" ew-case-locked RUN-NONINTERACTIVE)
  (ew-refusal work "locked-group" ew-case-locked-group RUN-NONINTERACTIVE)
  (ew-refusal work "locked-mask" ew-case-locked-mask RUN-NONINTERACTIVE)
  (ew-refusal work "run-mode" ew-case-layer 5)
  (ew-text-layer work)
  (ew-auto-notices)
  ; The README's batch example.
  (ew-report "batch-example-count"
             (= 2 (edgewise-batch (string-append work "/in/batch/*.png") (string-append work "/out/batch")
                                  0 1.5 0 30.0 2 1)))
  (ew-report "done" #t))

; Uncaught, so that GIMP prints the plug-in's error message into the log.
(define (edgewise-error-message work input prepare mode sigma-s)
  (let ((image (ew-load (string-append work "/in/" input))))
    (prepare image)
    (plug-in-edgewise-bilateral RUN-NONINTERACTIVE image (ew-layer image) mode sigma-s 0 20.0 0 1 0)))

; Uncaught, so that GIMP prints the Fourier filter's refusal of rgb.
(define (edgewise-fourier-rgb-message work)
  (let ((image (ew-load (string-append work "/in/astronaut.png"))))
    (plug-in-edgewise-fourier RUN-NONINTERACTIVE image (ew-layer image) 1 4.0 30.0 0 0 1)))
