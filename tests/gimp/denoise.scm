; plug-in-edgewise-denoise in script-fu batch, run by run_gimp_denoise.sh
; in its own gimp-console session: the defaults (method -1, the one the
; noise model recommends) and every method index on a photo with camera-like
; noise, each saved to WORK/out for ctest to compare with denoise_tool's
; result (what the procedure does, outside GIMP); calls that must fail
; (a method index that is no method, a negative multiplier) report
; "CHECK name PASS" when they failed and left the image clean.
; Arguments after run-mode, image, drawable: method strength luminance colour.

(define (dn-load path) (car (gimp-file-load RUN-NONINTERACTIVE path path)))
(define (dn-layer image) (car (gimp-image-get-active-drawable image)))
(define (dn-report name ok)
  (gimp-message (string-append "CHECK " name (if ok " PASS" " FAIL"))))

(define (dn-arg-names procedure)
  (let loop ((index 0) (names ""))
    (if (< index (list-ref (gimp-procedural-db-proc-info procedure) 6))
        (loop (+ index 1)
              (string-append names " " (cadr (gimp-procedural-db-proc-arg procedure index))))
        names)))

(define (dn-menu procedure)
  (let* ((found (gimp-plugins-query ""))
         (paths (list-ref found 1))
         (names (list-ref found 11)))
    (let loop ((p paths) (n names))
      (cond ((null? n) "none")
            ((equal? (car n) procedure) (car p))
            (else (loop (cdr p) (cdr n)))))))

; Runs the procedure on INPUT and saves the result as OUTPUT.
(define (dn-run work input output method strength luminance colour)
  (let ((image (dn-load (string-append work "/in/" input))))
    (plug-in-edgewise-denoise RUN-NONINTERACTIVE image (dn-layer image) method strength luminance colour)
    (gimp-file-save RUN-NONINTERACTIVE image (dn-layer image) (string-append work "/out/" output)
                    (string-append work "/out/" output))
    (gimp-image-delete image)))

; Expects the call to fail and to leave the image clean; saves it.
(define (dn-expect-error work name method strength luminance colour)
  (let* ((image (dn-load (string-append work "/in/phone.png")))
         (ignored (gimp-image-clean-all image))
         (failed (catch #t
                   (plug-in-edgewise-denoise RUN-NONINTERACTIVE image (dn-layer image) method strength luminance
                                             colour)
                   #f)))
    (dn-report name (and failed (= 0 (car (gimp-image-is-dirty image)))))
    (gimp-file-save RUN-NONINTERACTIVE image (dn-layer image) (string-append work "/out/" name ".png")
                    (string-append work "/out/" name ".png"))
    (gimp-image-delete image)))

; METHODS: the method indices to run, each saved as method-N.png.
(define (edgewise-denoise-checks work methods)
  (gimp-message (string-append "PDB DENOISE ARGS" (dn-arg-names "plug-in-edgewise-denoise")))
  (gimp-message (string-append "PDB DENOISE MENU " (dn-menu "plug-in-edgewise-denoise")))
  (gimp-message (string-append "PDB NLBAYES ARGS" (dn-arg-names "plug-in-edgewise-nlbayes")))
  (gimp-message (string-append "PDB PYRAMID ARGS" (dn-arg-names "plug-in-edgewise-pyramid")))
  (gimp-message (string-append "PDB NLBAYES MENU " (dn-menu "plug-in-edgewise-nlbayes")))
  (dn-run work "phone.png" "defaults.png" -1 1.0 1.0 1.0)
  (dn-run work "camera.png" "defaults-gray.png" -1 1.0 1.0 1.0)
  (dn-run work "phone.png" "colour-only.png" -1 1.0 0.0 2.0)
  (for-each (lambda (method)
              (dn-run work "phone.png" (string-append "method-" (number->string method) ".png") method 1.0 1.0 1.0))
            methods)
  (dn-expect-error work "bad-method-1" 1 1.0 1.0 1.0)
  (dn-expect-error work "bad-method-high" 99 1.0 1.0 1.0)
  (dn-expect-error work "bad-method-low" -2 1.0 1.0 1.0)
  (dn-expect-error work "bad-strength" -1 -0.5 1.0 1.0)
  (dn-expect-error work "bad-colour" -1 1.0 1.0 -1.0)
  (dn-report "denoise-done" #t))

; Uncaught, so that GIMP prints the plug-in's error message into the log.
(define (edgewise-denoise-error work method strength)
  (let ((image (dn-load (string-append work "/in/phone.png"))))
    (plug-in-edgewise-denoise RUN-NONINTERACTIVE image (dn-layer image) method strength 1.0 1.0)))
