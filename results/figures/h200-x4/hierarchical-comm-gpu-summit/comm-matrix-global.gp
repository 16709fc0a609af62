# rooftune figure 'comm-matrix-global' (heatmap): commmat_global_<i>_<j> of one point as a 12 x 12 matrix
# Reads comm-matrix-global.dat from this folder and writes comm-matrix-global.png and comm-matrix-global.svg next to it.
# Regenerate: cd results/figures/h200-x4/hierarchical-comm-gpu-summit && gnuplot comm-matrix-global.gp

reset
set encoding utf8
set linetype 1 lc rgb '#0072B2' lw 2 pt 5 ps 1.1 dt 1
set linetype 2 lc rgb '#D55E00' lw 2 pt 7 ps 1.1 dt 1
set linetype 3 lc rgb '#009E73' lw 2 pt 9 ps 1.1 dt 1
set linetype 4 lc rgb '#CC79A7' lw 2 pt 11 ps 1.1 dt 1
set linetype 5 lc rgb '#E69F00' lw 2 pt 5 ps 1.1 dt 1
set linetype 6 lc rgb '#56B4E9' lw 2 pt 7 ps 1.1 dt 1
set linetype 7 lc rgb '#000000' lw 2 pt 9 ps 1.1 dt 1
set linetype 8 lc rgb '#F0E442' lw 2 pt 11 ps 1.1 dt 1
set linetype cycle 8
set border 3 lc rgb '#404040'
set tics nomirror out
set grid xtics ytics back lt 1 lc rgb '#dcdcdc' lw 1
set key outside right top vertical Left reverse samplen 2 spacing 1.2
set datafile missing '?'
set title 'Bytes each rank sends across nodes (fastest point)'
set xlabel 'j (second index of commmat_global_<i>_<j>)'
set ylabel 'i (first index)'
set xrange [-0.5:11.5]
set yrange [11.5:-0.5]
set xtics 1 out
set ytics 1 out
set grid noxtics noytics
unset key
set size ratio -1
set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')
set cbrange [0:*]
set cblabel 'commmat_global_<i>_<j> (bytes)'

# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
} else {
    set terminal png size 1024,640 noenhanced
}
set output 'comm-matrix-global.png'
plot 'comm-matrix-global.dat' using 2:1:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder fc palette notitle, \
     '' using 2:1:(gprintf('%.3g', $3)) with labels font ',8' tc rgb '#808080' notitle

set terminal svg size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
set output 'comm-matrix-global.svg'
plot 'comm-matrix-global.dat' using 2:1:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder fc palette notitle, \
     '' using 2:1:(gprintf('%.3g', $3)) with labels font ',8' tc rgb '#808080' notitle
unset output
