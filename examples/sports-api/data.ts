/** Demo data for the sports API: a few players, events and courses, with the schemas that describe them. */
import { z } from "zod";

export const playerSchema = z.object({ id: z.number().int(), name: z.string(), country: z.string().length(2), handicap: z.number() });
export const eventSchema = z.object({ id: z.number().int(), title: z.string(), courseId: z.number().int(), date: z.iso.date() });
export const courseSchema = z.object({ id: z.number().int(), name: z.string(), city: z.string(), par: z.number().int() });

export type Player = z.infer<typeof playerSchema>;
export type SportsEvent = z.infer<typeof eventSchema>;
export type Course = z.infer<typeof courseSchema>;

export const players: readonly Player[] = [
  { id: 1, name: "Ana Lindqvist", country: "SE", handicap: 2.1 },
  { id: 2, name: "Tomás Herrera", country: "AR", handicap: 0.4 },
  { id: 3, name: "Grace Okafor", country: "NG", handicap: 5.8 },
  { id: 4, name: "Kenji Watanabe", country: "JP", handicap: 1.2 },
];

export const courses: readonly Course[] = [
  { id: 1, name: "Old Links", city: "St Andrews", par: 72 },
  { id: 2, name: "Lakeside", city: "Geneva", par: 71 },
  { id: 3, name: "Red Canyon", city: "Sedona", par: 70 },
];

export const events: readonly SportsEvent[] = [
  { id: 1, title: "Spring Open", courseId: 1, date: "2027-04-10" },
  { id: 2, title: "Lake Classic", courseId: 2, date: "2027-06-21" },
  { id: 3, title: "Canyon Cup", courseId: 3, date: "2027-09-05" },
];
