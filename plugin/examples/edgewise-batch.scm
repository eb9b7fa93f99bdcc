; Batch-denoise a folder with the Edgewise plug-in from GIMP's script-fu.
;
;   gimp-console-2.10 -i \
;     -b '(load "/path/to/edgewise-batch.scm")' \
;     -b '(edgewise-batch "/photos/*.png" "/photos/denoised" 1 3.0 0 20.0 0 1)' \
;     -b '(gimp-quit 0)'
;
; Arguments after the output folder are plug-in-edgewise-bilateral's own:
; mode (0 per-channel, 1 rgb, 2 lab), sigma-s (px), radius (0 = auto),
; sigma-r (0-255 code values, Delta E in lab mode), kernel (0 gaussian,
; 1 tukey, 2 lorentz, 3 huber), iterations. Each result keeps its file's
; name, format and bit depth; the output folder must exist. Returns the
; number of files written.

(define (edgewise-batch-file-name path)
  ; The part after the last "/".
  (let loop ((parts (strbreakup path "/")))
    (if (null? (cdr parts)) (car parts) (loop (cdr parts)))))

(define (edgewise-batch pattern out-dir mode sigma-s radius sigma-r kernel iterations)
  (let loop ((files (cadr (file-glob pattern 1)))
             (written 0))
    (if (null? files)
        written
        (let* ((input (car files))
               (output (string-append out-dir "/" (edgewise-batch-file-name input)))
               (image (car (gimp-file-load RUN-NONINTERACTIVE input input)))
               (drawable (car (gimp-image-get-active-drawable image))))
          (plug-in-edgewise-bilateral RUN-NONINTERACTIVE image drawable
                                      mode sigma-s radius sigma-r kernel iterations 0)
          (gimp-file-save RUN-NONINTERACTIVE image drawable output output)
          (gimp-image-delete image)
          (loop (cdr files) (+ written 1))))))
