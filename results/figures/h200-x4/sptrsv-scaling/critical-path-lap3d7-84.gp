# rooftune figure 'critical-path-lap3d7-84' (line): model_over_measured against parts, one line per layout
# Reads critical-path-lap3d7-84.dat from this folder and writes critical-path-lap3d7-84.png and critical-path-lap3d7-84.svg next to it.
# Regenerate: cd results/figures/h200-x4/sptrsv-scaling && gnuplot critical-path-lap3d7-84.gp

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
set title 'lap3d7-84: critical-path model over measured time (1 = exact)'
set xlabel 'parts'
set ylabel 'model_over_measured (ratio)'
set logscale x 2
set format x '%g'
set autoscale xfix
set offsets graph 0.03, graph 0.03, graph 0.05, 0
set yrange [0:*]

# PNG: cairo when this gnuplot has it (antialiased, same font as the SVG), else libgd.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
} else {
    set terminal png size 1024,640 noenhanced
}
set output 'critical-path-lap3d7-84.png'
plot 'critical-path-lap3d7-84.dat' index 0 using 1:2 with linespoints lt 1 dt 1 title '1xp', \
     '' index 1 using 1:2 with linespoints lt 2 dt 1 title '2d', \
     '' index 2 using 1:2 with linespoints lt 3 dt 1 title 'px1'

set terminal svg size 1024,640 font 'Sans,11' noenhanced background rgb 'white'
set output 'critical-path-lap3d7-84.svg'
plot 'critical-path-lap3d7-84.dat' index 0 using 1:2 with linespoints lt 1 dt 1 title '1xp', \
     '' index 1 using 1:2 with linespoints lt 2 dt 1 title '2d', \
     '' index 2 using 1:2 with linespoints lt 3 dt 1 title 'px1'
unset output
