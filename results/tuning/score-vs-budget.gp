reset
set title 'Best strategy per tool: methodology score by budget (0 = random, 1 = optimum)'
set xlabel 'budget (evaluations)'
set ylabel 'score P'
set logscale x
set grid
set key outside right
set yrange [*:1.05]
set terminal pngcairo noenhanced size 1200,640
set output 'score-vs-budget.png'
plot 'score-vs-budget.dat' index 0 using 1:2 with linespoints dt 1 lc 1 title 'convolution_A100 rooftune', 'score-vs-budget.dat' index 1 using 1:2 with linespoints dt 2 lc 1 title 'convolution_A100 Kernel Tuner', 'score-vs-budget.dat' index 2 using 1:2 with linespoints dt 1 lc 2 title 'convolution_A100_T4 rooftune', 'score-vs-budget.dat' index 3 using 1:2 with linespoints dt 1 lc 3 title 'convolution_A4000 rooftune', 'score-vs-budget.dat' index 4 using 1:2 with linespoints dt 2 lc 3 title 'convolution_A4000 Kernel Tuner', 'score-vs-budget.dat' index 5 using 1:2 with linespoints dt 1 lc 4 title 'convolution_MI250X rooftune', 'score-vs-budget.dat' index 6 using 1:2 with linespoints dt 2 lc 4 title 'convolution_MI250X Kernel Tuner', 'score-vs-budget.dat' index 7 using 1:2 with linespoints dt 1 lc 5 title 'gemm_RTX_3090 rooftune', 'score-vs-budget.dat' index 8 using 1:2 with linespoints dt 2 lc 5 title 'gemm_RTX_3090 Kernel Tuner', 'score-vs-budget.dat' index 9 using 1:2 with linespoints dt 1 lc 6 title 'h100-register-tiling-banded-1m rooftune', 'score-vs-budget.dat' index 10 using 1:2 with linespoints dt 2 lc 6 title 'h100-register-tiling-banded-1m Kernel Tuner', 'score-vs-budget.dat' index 11 using 1:2 with linespoints dt 1 lc 7 title 'h100-register-tiling-xct-256-hilbert rooftune', 'score-vs-budget.dat' index 12 using 1:2 with linespoints dt 2 lc 7 title 'h100-register-tiling-xct-256-hilbert Kernel Tuner', 'score-vs-budget.dat' index 13 using 1:2 with linespoints dt 1 lc 8 title 'pnpoly_RTX_3090 rooftune', 'score-vs-budget.dat' index 14 using 1:2 with linespoints dt 2 lc 8 title 'pnpoly_RTX_3090 Kernel Tuner'
set terminal svg noenhanced size 1200,640
set output 'score-vs-budget.svg'
replot
